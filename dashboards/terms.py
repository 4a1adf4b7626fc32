"""The game terms and rank-ladder titles in the locale chosen in the sidebar: 繁 (Traditional
Chinese, the default, as the rest of the interface), 简 (Simplified) or English.

The warehouse holds the rank ladder as the spec writes it (Simplified, ``rank_ladder.title``) and
the terms in Traditional (``tier_name`` 雙炒, 包牌, 頂大): :func:`title` and :func:`text` give
either in the chosen locale, so that every page reads one way. Both games' terms: Big Two's
(炒, 包牌, 頂大) and Dou Dizhu's (地主, 農民, 春天, 封頂, 底牌 …, in English as docs/doudizhu.md
names them). Pure (no query); the choice is ``st.session_state["f_locale"]`` (:func:`chosen`).
Pass the words of a page through them, never a player's name or an id.
"""

from __future__ import annotations

import re
from typing import Any

import streamlit as st

LOCALE_KEY = "f_locale"
#: Locale → its name in the sidebar.
LOCALES = {"繁": "繁體 (Traditional)", "简": "简体 (Simplified)", "en": "English"}
DEFAULT = "繁"

#: The characters the two scripts spell apart, in the titles and the terms (农 農, 弹 彈 of
#: 炸弹, 斗 鬥 of 斗地主, 锄 鋤 of 锄大D).
_SIMPLIFIED = "业员长处厅总顶双对欢乐张农弹斗锄"
_TRADITIONAL = "業員長處廳總頂雙對歡樂張農彈鬥鋤"
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

#: The game terms (in Traditional) in English.
TERMS_EN = {
    # Big Two
    "頂大": "must-block", "包牌": "bao", "雙炒": "double chao", "三炒": "triple chao",
    "四炒": "quadruple chao", "炒": "chao", "下家": "next seat", "鋤大D": "Big Two",
    # Dou Dizhu (docs/doudizhu.md, spec 2)
    "鬥地主": "Dou Dizhu", "地主": "landlord", "農民": "farmer", "春天": "spring",
    "反春": "anti-spring", "叫分": "bid", "叫地主": "call", "不叫": "pass", "1 分": "1 point",
    "2 分": "2 points", "3 分": "3 points", "封頂": "cap", "底注": "stake", "底牌": "kitty",
    "炸彈": "bomb", "王炸": "rocket", "火箭": "rocket", "小王": "black joker",
    "大王": "red joker", "荒牌": "void deal",
}  # fmt: skip


def _english_rules() -> list[tuple[re.Pattern[str], str]]:
    """Per term, longest first (雙炒 before 炒, 叫地主 before 地主): a term beside its English
    (``地主 landlord``, ``landlord (地主)``, ``頂大 (must-block)``, any case, a plural's s) is
    the English alone; any other, the English word."""
    rules = []
    for term in sorted(TERMS_EN, key=len, reverse=True):
        zh, en = re.escape(term), f"({re.escape(TERMS_EN[term])}s?)"
        glossed = rf"{zh} \({en}\)|{zh} {en}\b|\b{en} \({zh}\)|\b{en} {zh}"
        rules.append((re.compile(glossed, re.IGNORECASE), term))
    return rules


_ENGLISH = _english_rules()


def _english(value: str) -> str:
    for rule, term in _ENGLISH:
        if term not in value:  # each rule needs its term: most cells hold none (23 -> 3 µs a cell)
            continue
        value = rule.sub(lambda m: next(g for g in m.groups() if g), value)
        value = value.replace(term, TERMS_EN[term])
    return value


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
    >>> text("Void deals (荒牌), 地主 landlord, 3 分, or call 叫地主", "en")
    'Void deals, landlord, 3 points, or call'
    >>> text("farmer (農民), cap (封顶)", "简"), text("炸弹 (bomb), 斗地主", "繁")
    ('farmer (农民), cap (封顶)', '炸彈 (bomb), 鬥地主')
    """
    loc = locale or chosen()
    if loc == "简":
        return value.translate(_TO_SIMPLIFIED)
    if loc == "en":  # the terms in either script
        return _english(value.translate(_TO_TRADITIONAL))
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
