"""The game terms and rank-ladder titles in the locale chosen in the sidebar: 繁 (Traditional
Chinese, the default, as the rest of the interface), 简 (Simplified) or English.

The warehouse holds the rank ladder as the spec writes it (Simplified, ``rank_ladder.title``) and
the terms in Traditional (``tier_name`` 雙炒, 包牌, 頂大): :func:`title` and :func:`text` give
either in the chosen locale, so that every page reads one way. Pure (no query); the choice is
``st.session_state["f_locale"]`` (:func:`chosen`).
"""

from __future__ import annotations

from typing import Any

import streamlit as st

LOCALE_KEY = "f_locale"
#: Locale → its name in the sidebar.
LOCALES = {"繁": "繁體 (Traditional)", "简": "简体 (Simplified)", "en": "English"}
DEFAULT = "繁"

_SIMPLIFIED = "业员长处厅总顶双对欢乐张"
_TRADITIONAL = "業員長處廳總頂雙對歡樂張"
_TO_TRADITIONAL = str.maketrans(_SIMPLIFIED, _TRADITIONAL)
_TO_SIMPLIFIED = str.maketrans(_TRADITIONAL, _SIMPLIFIED)

#: The rank ladder's titles (as stored, Simplified) in English.
TITLES_EN = {
    "待业": "Unemployed", "科员": "Clerk", "科长助理": "Assistant Section Chief",
    "副科长": "Deputy Section Chief", "第一副科": "First Deputy Section Chief",
    "正科长": "Section Chief", "处长助理": "Assistant Division Chief",
    "副处长": "Deputy Division Chief", "第一副处": "First Deputy Division Chief",
    "正处长": "Division Chief", "局长助理": "Assistant Bureau Director",
    "副局长": "Deputy Bureau Director", "第一副局": "First Deputy Bureau Director",
    "正局长": "Bureau Director", "厅长助理": "Assistant Department Director",
    "副厅长": "Deputy Department Director", "第一副厅": "First Deputy Department Director",
    "正厅长": "Department Director", "部长助理": "Assistant Minister", "副部长": "Deputy Minister",
    "第一副部": "First Deputy Minister", "正部长": "Minister", "总理助理": "Assistant Premier",
    "副总理": "Vice Premier", "第一副总理": "First Vice Premier", "总理": "Premier",
    "副主席": "Vice Chairman", "主席": "Chairman",
}  # fmt: skip

#: The game terms in English, longest first (雙炒 before 炒).
TERMS_EN = (
    ("頂大 (must-block)", "must-block"),  # a gloss is not repeated in English
    ("頂大", "must-block"),
    ("包牌", "bao"),
    ("雙炒", "double chao"),
    ("三炒", "triple chao"),
    ("四炒", "quadruple chao"),
    ("炒", "chao"),
    ("下家", "next seat"),
)


def chosen() -> str:
    """The locale chosen in the sidebar (:data:`DEFAULT` when none)."""
    value = st.session_state.get(LOCALE_KEY)
    return str(value) if value in LOCALES else DEFAULT


def text(value: str, locale: str | None = None) -> str:
    """``value`` with its game terms in ``locale`` (the chosen one by default).

    >>> text("炒 history", "en"), text("頂大 record", "简"), text("雙炒", "繁")
    ('chao history', '顶大 record', '雙炒')
    >>> text("頂大 (must-block): the next seat", "en")
    'must-block: the next seat'
    """
    loc = locale or chosen()
    if loc == "简":
        return value.translate(_TO_SIMPLIFIED)
    if loc == "en":
        for term, english in TERMS_EN:
            value = value.replace(term, english)
        return value
    return value.translate(_TO_TRADITIONAL)


def title(value: Any, locale: str | None = None) -> Any:
    """A rank-ladder title in ``locale``; anything else (``None``) as is.

    >>> title("正处长", "繁"), title("正处长", "简"), title("正处长", "en"), title(None, "en")
    ('正處長', '正处长', 'Division Chief', None)
    """
    if not isinstance(value, str):
        return value
    loc = locale or chosen()
    if loc == "en":
        return TITLES_EN.get(value.translate(_TO_SIMPLIFIED), value)
    return text(value, loc)
