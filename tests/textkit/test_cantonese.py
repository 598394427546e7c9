"""Colloquial written Cantonese searched as written Chinese: the table, phrases before their
characters, and written words that merely contain a Cantonese character left alone."""

from __future__ import annotations

import pytest

from textkit.cantonese import WORDS, has_cantonese, written_chinese


@pytest.mark.parametrize(
    ("colloquial", "written"),
    [
        ("身份證點樣補領？", "身份證怎樣補領？"),
        ("圖書證幾時到期？", "圖書證何時到期？"),
        ("要準備乜嘢文件？", "要準備什麼文件？"),
        ("要帶咩文件？", "要帶什麼文件？"),
        ("喺邊度申請？", "在哪裡申請？"),
        ("續期要幾多錢？", "續期要多少錢？"),  # the phrase, not 幾多 + 錢
        ("一年有幾多日假？", "一年有多少日假？"),
        ("我冇身份證", "我沒有身份證"),
        ("佢嘅申請表", "他的申請表"),
        ("佢哋可唔可以申請？", "他們可不可以申請？"),
        ("呢個係咪免費？", "呢個是咪免費？"),
        ("我唔係本地居民", "我不是本地居民"),
        ("唔使預約", "不用預約"),
        ("唔好帶寵物入場", "不要帶寵物入場"),
        ("我唔知點樣填表", "我不知怎樣填表"),
        ("点样申请？几多钱？", "怎样申请？多少钱？"),  # Simplified Cantonese
        ("我冇证，喺边度补领？", "我没有证，在哪里补领？"),  # 冇 in the question's script
    ],
)
def test_colloquial_words_become_written_chinese(colloquial: str, written: str) -> None:
    assert written_chinese(colloquial) == written
    assert has_cantonese(colloquial)


@pytest.mark.parametrize(
    "text",
    [
        "兩國的關係",  # 係 in 關係 (relationship) is no "is"
        "相關係數為零",  # 係數 (coefficient)
        "維係社區聯係",
        "唔該晒",  # "thank you": 唔 before no verb
        "系统升级通知",  # the Simplified 系 is left alone
        "How much does a passport cost?",
        "住宅區停車許可證一年多少錢？",
    ],
)
def test_written_words_and_other_text_are_left_as_they_are(text: str) -> None:
    assert written_chinese(text) == text
    assert not has_cantonese(text)


def test_the_table_maps_every_word_once_and_never_to_itself() -> None:
    colloquial = [word for word, _ in WORDS]
    assert len(colloquial) == len(set(colloquial))
    assert all(word != written and written for word, written in WORDS)
    # the written forms hold no Cantonese word: normalising twice changes nothing
    for _, written in WORDS:
        assert written_chinese(written) == written
