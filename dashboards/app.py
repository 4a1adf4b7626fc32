"""The big2-replay dashboards: builds ``st.navigation`` over the pages and the shared filters.

Run with ``big2 dashboard [--warehouse PATH] [--port N]`` (the warehouse path reaches the pages
as ``$BIG2_WAREHOUSE``). Pages are in ``views/`` (not ``pages/``, which Streamlit would also serve on its own); their data comes from ``dashboards.data``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `streamlit run dashboards/app.py` puts only dashboards/ on the path
    sys.path.insert(0, str(ROOT))

from dashboards import ddz_ui, terms, ui  # noqa: E402
from pipeline.warehouse import reading  # noqa: E402

st.set_page_config(page_title="big2-replay", page_icon="🃏", layout="wide")

game = ddz_ui.game_choice()  # Big Two / Dou Dizhu: the navigation lists that game's pages
PAGES = {
    "Games": [
        st.Page("views/overview.py", title="Overview", icon="🏠", default=game != ddz_ui.DDZ),
        st.Page("views/leaderboard.py", title="Leaderboard", icon="🏆"),
        st.Page("views/player.py", title="Player", icon="👤"),
        st.Page("views/replayer.py", title="Hand replayer", icon="🃏", url_path="replayer"),
        st.Page("views/must_block.py", title=terms.text("頂大 and collusion"), icon="🛡️"),
        st.Page("views/report.py", title="Report", icon="📋"),
    ],
}
DDZ_PAGES = {
    terms.text("Dou Dizhu 鬥地主"): [
        st.Page(
            "views/ddz_leaderboard.py",
            title="Leaderboard",
            icon="🏆",
            url_path="ddz_leaderboard",
            default=game == ddz_ui.DDZ,
        ),
        st.Page("views/ddz_player.py", title="Player", icon="👤", url_path="ddz_player"),
        st.Page(
            "views/ddz_replayer.py", title="Hand replayer", icon="🃏", url_path=ddz_ui.REPLAYER_PATH
        ),
        st.Page("views/ddz_coop.py", title="Farmer cooperation", icon="🤝", url_path="ddz_coop"),
        st.Page("views/report.py", title="Report", icon="📋", url_path="ddz_report"),
    ],
}
SHARED = {
    "Operations": [
        st.Page("views/import_health.py", title="Import health", icon="🩺"),
        st.Page("views/sql_explorer.py", title="SQL explorer", icon="🔎"),
    ],
}

#: Pages that ignore the sidebar filters: they do not show them.
UNFILTERED = {"Import health", "SQL explorer"}

page = st.navigation(ddz_ui.pages(game, PAGES, DDZ_PAGES, SHARED))
with reading.one_connection():  # closed at the end of the run: never blocks a writer
    ui.sidebar_filters(shown=page.title not in UNFILTERED)
    ui.run_page(page)
