"""The JSON Lines reader: every bad input of issue 4 is one reject, and the good games still land."""

from __future__ import annotations

import copy
import gzip
import hashlib
import io
import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.errors import LogFormatError
from pipeline.logs import read_log, schema_path
from pipeline.logs.jsonl import RAW_PREFIX_BYTES, iter_jsonl_lines, read_jsonl, read_jsonl_stream
from pipeline.logs.model import GameRecord, Reject
from pipeline.logs.records import canonical_json, content_hash
from pipeline.replay import ReplayedGame, replay
from pipeline.sim.sample import bad_lines, dumps, sample_game

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"


def outcomes(items: list[GameRecord | Reject]) -> tuple[list[str], list[Reject]]:
    """Replay what parsed: (ids of the games that replayed, every reject in order)."""
    good: list[str] = []
    rejects: list[Reject] = []
    for item in items:
        done: ReplayedGame | Reject = item if isinstance(item, Reject) else replay(item)
        if isinstance(done, Reject):
            rejects.append(done)
        else:
            good.append(done.record.game_id)
    return good, rejects


def run(path: Path, **kwargs: Any) -> tuple[list[str], list[Reject]]:
    return outcomes(list(read_jsonl(path, **kwargs)))


@pytest.fixture(scope="module")
def good() -> list[dict[str, Any]]:
    return [sample_game(seed=500 + k, game_id=f"ok-{k}") for k in range(2)]


def write(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path


# ----- the bad sample file ---------------------------------------------------------------------

EXPECTED_BAD = [  # line, game id, code, action index (None: not one action)
    (2, "bad-truncated", "E_JSON", None),
    (3, "bad-json", "E_JSON", None),
    (4, "bad-types", "E_SCHEMA", 3),
    (5, "bad-card", "E_BAD_CARD", 2),
    (7, "bad-dealt-twice", "E_DEAL_DUPLICATE", None),
    (8, "bad-not-held", "E_NOT_IN_HAND", "any"),
    (9, "bad-out-of-turn", "E_OUT_OF_TURN", 1),
    (10, "bad-winner", "E_RESULT_MISMATCH", None),
    (11, "bad-huge", "E_LINE_TOO_LONG", None),
    (12, "bad-encoding", "E_ENCODING", None),
]


def test_bad_sample_rejects_each_bad_line_and_keeps_the_good_games() -> None:
    path = SAMPLES / "bad.jsonl"
    good_ids, rejects = run(path)
    assert good_ids == ["good-0", "good-1", "good-2"]
    got = [(r.source.line, r.game_id, r.code, r.action_index) for r in rejects]
    expected = [
        (line, gid, code, got[k][3] if index == "any" else index)
        for k, (line, gid, code, index) in enumerate(EXPECTED_BAD)
    ]
    assert got == expected
    assert all(r.source.file == str(path) for r in rejects)
    lines = path.read_bytes().split(b"\n")
    for r in rejects:
        line = lines[r.source.line - 1]
        if r.code == "E_LINE_TOO_LONG":
            assert len(r.raw) == RAW_PREFIX_BYTES
            assert line.startswith(r.raw.encode())
        elif r.code == "E_ENCODING":
            assert r.raw == line.decode("utf-8", "backslashreplace")
            assert "\\xff" in r.raw
        else:
            assert r.raw == line.decode("utf-8")


def test_sample_bad_file_matches_the_generator() -> None:
    """data/samples/bad.jsonl holds exactly the lines the generator describes."""
    lines = (SAMPLES / "bad.jsonl").read_bytes().split(b"\n")[:-1]
    codes = [code for code, _ in bad_lines()]
    assert len(lines) == len(codes)
    assert [c for c in codes if c] == [code for _, _, code, _ in EXPECTED_BAD]


# ----- one bad line between two good games ------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "line"),
    [(code, line) for code, line in bad_lines() if code],
    ids=lambda v: str(v)[:20],
)
def test_each_bad_line_alone_between_good_games(
    tmp_path: Path, good: list[dict[str, Any]], code: str, line: bytes
) -> None:
    path = write(tmp_path / "one.jsonl", [dumps(good[0]).encode(), line, dumps(good[1]).encode()])
    good_ids, rejects = run(path)
    assert good_ids == ["ok-0", "ok-1"]
    assert [(r.code, r.source.line, r.source.file) for r in rejects] == [(code, 2, str(path))]
    assert rejects[0].game_id is not None and rejects[0].game_id.startswith("bad-")


def test_wrong_type_names_the_field_path(tmp_path: Path, good: list[dict[str, Any]]) -> None:
    game = copy.deepcopy(good[0])
    game["game_id"] = "typed"
    game["actions"][3]["cards"] = 7
    game["actions"][3]["action"] = "play"
    path = write(tmp_path / "t.jsonl", [dumps(game).encode()])
    [reject] = list(read_jsonl(path))
    assert isinstance(reject, Reject)
    assert (reject.code, reject.action_index, reject.game_id) == ("E_SCHEMA", 3, "typed")
    assert reject.message.startswith("actions[3].cards: ")


@pytest.mark.parametrize(
    ("change", "path", "index"),
    [
        (lambda g: g.pop("seats"), "seats", None),
        (lambda g: g.update(format_version=2), "format_version", None),
        (lambda g: g.update(colour="red"), "colour", None),
        (lambda g: g.update(game_id=17), "game_id", None),
        (lambda g: g.update(game_kind="poker"), "game_kind", None),
        (lambda g: g["seats"].reverse(), "seats[0].seat", None),
        (lambda g: g["seats"][1].update(player_id=None), "seats[1].player_id", None),
        (lambda g: g.update(previous_winner=9), "previous_winner", None),
        (lambda g: g["actions"][2].update(action="fold"), "actions[2].action", 2),
        (lambda g: g["actions"][4].update(extra=1), "actions[4].extra", 4),
        (lambda g: g["actions"][0].pop("cards"), "actions[0].cards", 0),
        (lambda g: g["actions"][1].update(action="claim"), "actions[1].claim", 1),
        (lambda g: g["actions"][5].update(ts="yesterday"), "actions[5].ts", 5),
        (lambda g: g["result"].update(cards_left=[0, "1", 2, 3]), "result.cards_left[1]", None),
        (lambda g: g["deal"].update(hands="3d"), "deal.hands", None),
        (lambda g: g.update(started_at="today"), "started_at", None),
    ],
)
def test_schema_errors_name_the_path(
    good: list[dict[str, Any]], change: Any, path: str, index: int | None
) -> None:
    game = copy.deepcopy(good[0])
    change(game)
    [reject] = list(read_jsonl_stream(io.BytesIO(dumps(game).encode()), "mem"))
    assert isinstance(reject, Reject)
    assert reject.code == "E_SCHEMA"
    assert reject.message.startswith(f"{path}: ")
    assert reject.action_index == index


def test_bad_card_in_the_deal_and_a_drawn_card(good: list[dict[str, Any]]) -> None:
    game = copy.deepcopy(good[0])
    game["deal"]["hands"][2] = "3d 4d ZZ"
    [reject] = list(read_jsonl_stream(io.BytesIO(dumps(game).encode()), "mem"))
    assert isinstance(reject, Reject)
    assert (reject.code, reject.action_index) == ("E_BAD_CARD", None)
    assert reject.message.startswith("deal.hands[2]: ")


def test_not_json_values_and_shapes() -> None:
    data = b'{"game_id": "nan", "x": NaN}\n[1, 2]\n' + b"[" * 100_000 + b"\n"
    rejects = list(read_jsonl_stream(io.BytesIO(data), "mem"))
    assert [(r.code, r.source.line, r.game_id) for r in rejects] == [  # type: ignore[union-attr]
        ("E_JSON", 1, "nan"),
        ("E_SCHEMA", 2, None),
        ("E_JSON", 3, None),
    ]


def test_sample_truncated_line_says_it_ends_early_in_one_phrase() -> None:
    """bad.jsonl line 2 is cut inside a string: json points at the string's start, not at the
    end of the line, and its message ends in "at" (once read "starting at at column")."""
    _, rejects = run(SAMPLES / "bad.jsonl")
    assert rejects[0].message == (
        "invalid JSON: the line ends early (Unterminated string starting at column 2869)"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"game_id": "cut', "the line ends early (Unterminated string starting at column 13)"),
        ('{"game_id": "cut\\', "the line ends early (Unterminated string starting at column 13)"),
        ('{"a": "x\\u00', "the line ends early (Invalid \\uXXXX escape at column 10)"),
        ('{"a": [1, 2', "the line ends early (Expecting ',' delimiter at column 12)"),
        ('{"a": tr', "the line ends early (Expecting value at column 7)"),
        ('{"a": [nul ', "the line ends early (Expecting value at column 8)"),
        ('{"a": -', "the line ends early (Expecting value at column 7)"),
        ('{"a": 1.', "the line ends early (Expecting ',' delimiter at column 8)"),
        ('{"a": 1e+', "the line ends early (Expecting ',' delimiter at column 8)"),
        ('{"a": "b\tc"}', "Invalid control character at column 9"),
        ('{"a": "\\q"}', "Invalid \\escape at column 8"),
        ('{"a": [1 .', "Expecting ',' delimiter at column 10"),
        ('{"a": tx}', "Expecting value at column 7"),
        ('{"a": "x"', "the line ends early (Expecting ',' delimiter at column 10)"),
        ('{"a": 1,}', "Expecting property name enclosed in double quotes at column 9"),
    ],
)
def test_a_line_cut_anywhere_ends_early_and_other_errors_say_where(text: str, message: str) -> None:
    """A line cut inside a string, an escape, a literal or a number ends early, though json
    points at the value's start; any other error is not called a cut. Every message says
    "at column" once."""
    (reject,) = read_jsonl_stream(io.BytesIO(text.encode() + b"\n"), "mem")
    assert isinstance(reject, Reject) and reject.code == "E_JSON"
    assert reject.message == f"invalid JSON: {message}"


# ----- lines, bytes, files ----------------------------------------------------------------------


class CountingStream(io.BytesIO):
    """A stream that remembers the longest chunk handed out."""

    longest = 0

    def readline(self, size: int | None = -1) -> bytes:
        out = super().readline(size)
        self.longest = max(self.longest, len(out))
        return out


def test_huge_line_is_never_read_whole(good: list[dict[str, Any]]) -> None:
    cap = 64 * 1024
    huge = b'{"game_id": "huge", "pad": "' + b"x" * (10 * cap) + b'"}'
    stream = CountingStream(b"\n".join([dumps(good[0]).encode(), huge, dumps(good[1]).encode()]))
    good_ids, rejects = outcomes(list(read_jsonl_stream(stream, "mem", max_line_bytes=cap)))
    assert good_ids == ["ok-0", "ok-1"]
    assert [(r.code, r.source.line, r.game_id) for r in rejects] == [("E_LINE_TOO_LONG", 2, "huge")]
    assert str(len(huge) + 1) in rejects[0].message
    assert stream.longest <= cap + 1


def test_line_exactly_at_the_cap_is_read(good: list[dict[str, Any]]) -> None:
    line = dumps(good[0]).encode()
    items = list(read_jsonl_stream(io.BytesIO(line + b"\n"), "mem", max_line_bytes=len(line)))
    assert [isinstance(i, GameRecord) for i in items] == [True]
    items = list(read_jsonl_stream(io.BytesIO(line + b"\n"), "mem", max_line_bytes=len(line) - 1))
    assert [i.code for i in items if isinstance(i, Reject)] == ["E_LINE_TOO_LONG"]


def test_a_blank_line_over_the_cap_is_rejected_wherever_it_is() -> None:
    """After a blank line too (where the reader passes over runs of blank lines a buffer at a
    time): a line over the cap is E_LINE_TOO_LONG, blank or not, as readline finds it."""
    for before in (b"[1]\n", b"[1]\n\n", b"[1]\n\n\n\r\n"):
        data = before + b" " * 50 + b"\n\n[2]"
        stream = io.BufferedReader(io.BytesIO(data))
        items = list(iter_jsonl_lines(stream, "mem", max_line_bytes=40))
        lines = before.count(b"\n") + 1
        assert [(i.code, i.source.line) for i in items if isinstance(i, Reject)] == [
            ("E_LINE_TOO_LONG", lines)
        ]


def test_empty_file_gives_nothing(tmp_path: Path) -> None:
    assert list(read_jsonl(SAMPLES / "empty.jsonl")) == []
    (tmp_path / "empty.jsonl.gz").write_bytes(b"")
    assert list(read_jsonl(tmp_path / "empty.jsonl.gz")) == []
    (tmp_path / "blank.jsonl").write_bytes(b"\n  \n\r\n")
    assert list(read_jsonl(tmp_path / "blank.jsonl")) == []


def test_gzip_that_ends_early_keeps_the_games_before_it(
    tmp_path: Path, good: list[dict[str, Any]]
) -> None:
    games = [sample_game(seed=600 + k, game_id=f"z-{k}") for k in range(6)]
    whole = gzip.compress("".join(dumps(g) + "\n" for g in games).encode())
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(whole[: len(whole) * 2 // 3])
    good_ids, rejects = run(path)
    assert 1 <= len(good_ids) < 6
    assert good_ids == [f"z-{k}" for k in range(len(good_ids))]
    assert [(r.code, r.source.line, r.source.file) for r in rejects] == [
        ("E_GZIP_TRUNCATED", len(good_ids) + 1, str(path))
    ]


def test_sample_truncated_gzip() -> None:
    good_ids, rejects = run(SAMPLES / "truncated.jsonl.gz")
    assert good_ids == ["m-hk-1-g1"]
    assert [(r.code, r.source.line) for r in rejects] == [("E_GZIP_TRUNCATED", 2)]


def test_whole_gzip_and_corrupt_gzip(tmp_path: Path, good: list[dict[str, Any]]) -> None:
    path = tmp_path / "ok.jsonl.gz"
    path.write_bytes(gzip.compress("".join(dumps(g) + "\n" for g in good).encode()))
    assert run(path) == (["ok-0", "ok-1"], [])
    bad = tmp_path / "not.jsonl.gz"
    bad.write_bytes(b"this is not gzip\n")
    assert [r.code for r in run(bad)[1]] == ["E_GZIP"]


def test_crlf_bom_and_blank_lines(tmp_path: Path, good: list[dict[str, Any]]) -> None:
    data = b"\xef\xbb\xbf" + dumps(good[0]).encode() + b"\r\n\r\n" + dumps(good[1]).encode()
    (tmp_path / "w.jsonl").write_bytes(data)
    items = list(read_jsonl(tmp_path / "w.jsonl"))
    assert [(i.game_id, i.source.line) for i in items] == [("ok-0", 1), ("ok-1", 3)]  # type: ignore[union-attr]


def test_missing_file_and_unknown_shape_raise(tmp_path: Path) -> None:
    with pytest.raises(LogFormatError) as err:
        list(read_log(tmp_path / "nope.jsonl"))
    assert err.value.code == "E_FILE"
    (tmp_path / "x.txt").write_text("")
    with pytest.raises(LogFormatError):
        list(read_log(tmp_path / "x.txt"))


# ----- content hash -----------------------------------------------------------------------------


def test_content_hash_ignores_whitespace_and_key_order(good: list[dict[str, Any]]) -> None:
    game = good[0]
    reordered = dict(reversed(list(game.items())))
    lines = [
        json.dumps(game).encode(),
        json.dumps(reordered, indent=None, separators=(" , ", " :  ")).encode(),
        dumps(game).encode(),
    ]
    records = list(read_jsonl_stream(io.BytesIO(b"\n".join(lines)), "mem"))
    hashes = {r.content_hash for r in records if isinstance(r, GameRecord)}
    assert hashes == {content_hash(game)}
    changed = copy.deepcopy(game)
    changed["table_id"] = "elsewhere"
    assert content_hash(changed) != content_hash(game)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from([1e-05, -2.5e-05, 9.99e-05, 1e-04, 1e-06, 1e16, 1e15, 5e-324])
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_the_fallback_writes_orjsons_bytes(value: Any) -> None:
    # content_hash writes with orjson and falls back to canonical_json for what orjson cannot
    # write: the two spell every value alike, floats too (1e-05 is orjson's 0.00001)
    assert canonical_json(value).encode() == orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def test_a_game_hashes_alike_whichever_writer_wrote_it() -> None:
    # 2**70 sends the whole game to the fallback; its float must hash as orjson writes it
    game = {"balance": 1e-05, "n": 2**70}
    text = '{"balance":0.00001,"n":1180591620717411303424}'
    assert content_hash(game) == hashlib.sha256(text.encode()).hexdigest()


# ----- the documented format --------------------------------------------------------------------


def test_doc_example_reads_and_replays(tmp_path: Path) -> None:
    text = (ROOT / "docs" / "log-format.md").read_text(encoding="utf-8")
    block = text.split("```json\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "example.jsonl"
    path.write_text(json.dumps(json.loads(block), ensure_ascii=False) + "\n", encoding="utf-8")
    [record] = list(read_log(path))
    assert isinstance(record, GameRecord)
    done = replay(record)
    assert isinstance(done, ReplayedGame)
    assert (done.result.winner, done.result.cards_left) == (0, (0, 12, 8, 12))
    assert "# club-2026-11-01-t3-g1 won by seat 0 (0, 12, 8, 12)" in text


def test_doc_python_example_runs(capsys: pytest.CaptureFixture[str], monkeypatch: Any) -> None:
    text = (ROOT / "docs" / "log-format.md").read_text(encoding="utf-8")
    code = text.split("```python\n", 1)[1].split("\n```\n", 1)[0]
    monkeypatch.chdir(ROOT)
    exec(compile(code, "docs/log-format.md", "exec"), {})
    assert capsys.readouterr().out == "club-2026-11-01-t3-g1 won by seat 0 (0, 12, 8, 12)\n"


def test_schema_ships_and_accepts_the_samples() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    assert schema_path().is_file()
    schema = json.loads(schema_path().read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for name in ("games.jsonl", "partial.jsonl"):
        for line in (SAMPLES / name).read_text(encoding="utf-8").splitlines():
            assert list(validator.iter_errors(json.loads(line))) == []
    wrong = json.loads((SAMPLES / "games.jsonl").read_text(encoding="utf-8").splitlines()[0])
    wrong["actions"][0]["seat"] = "two"
    assert list(validator.iter_errors(wrong)) != []
