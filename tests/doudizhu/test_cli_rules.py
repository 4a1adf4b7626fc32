"""``big2 rules list`` / ``big2 rules show`` know the Dou Dizhu presets."""

from __future__ import annotations

import json
import tomllib

from typer.testing import CliRunner

from pipeline.cli import app

runner = CliRunner()


def test_rules_list_lists_the_dou_dizhu_presets() -> None:
    result = runner.invoke(app, ["rules", "list"])
    assert result.exit_code == 0, result.output
    assert "Dou Dizhu presets" in result.stdout
    for text in ("ddz", "ddz-2p", "二人斗地主", "hk (default)"):
        assert text in result.stdout


def test_rules_show_ddz_2p_marks_each_source() -> None:
    result = runner.invoke(
        app, ["rules", "show", "ddz-2p", "--set", "multiplier_cap=8", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    params = doc["parameters"]
    assert doc["name"] == "ddz-2p"
    assert params["players"] == {"value": 2, "from": "preset"}
    assert params["bidding"] == {"value": "call", "from": "preset"}
    assert params["multiplier_cap"] == {"value": 8, "from": "override"}
    assert params["stake"] == {"value": 1, "from": "default"}


def test_rules_show_ddz_table_and_toml() -> None:
    table = runner.invoke(app, ["rules", "show", "ddz"])
    assert table.exit_code == 0, table.output
    rows = {line.split("│")[1].strip(): line for line in table.stdout.splitlines() if "│" in line}
    assert "points" in rows["bidding"] and "none" in rows["multiplier_cap"]
    toml = runner.invoke(app, ["rules", "show", "ddz", "--format", "toml"])
    assert toml.exit_code == 0, toml.output
    assert tomllib.loads(toml.stdout)["bid_reentry"] is True


def test_rules_show_ddz_refuses_an_unknown_key_with_exit_2() -> None:
    result = runner.invoke(app, ["rules", "show", "ddz", "--set", "bombs=true"])
    assert result.exit_code == 2
    assert "E_RULESET_KEY" in result.output
