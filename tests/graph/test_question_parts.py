"""The two-part question splitter (graph.question_parts), table-tested."""

from __future__ import annotations

import pytest

from graph.question_parts import split_question

SPLIT = [
    (
        "How much does it cost to renew a passport and what documents do I need to bring?",
        [
            (
                "How much does it cost to renew a passport",
                "How much does it cost to renew a passport",
            ),
            (
                "what documents do I need to bring?",
                "what documents do I need to bring renew passport",
            ),
        ],
    ),
    (
        "護照換發要多少錢？要帶什麼文件？",
        [
            ("護照換發要多少錢？", "護照換發要多少錢？"),
            ("要帶什麼文件？", "要帶什麼文件 護照 換發"),
        ],
    ),
    (
        "换护照多少钱，需要带什么材料",
        [("换护照多少钱", "换护照多少钱"), ("需要带什么材料", "需要带什么材料 护照")],
    ),
    (
        "What is the fee? Do I need a photo?",
        [("What is the fee?", "What is the fee?"), ("Do I need a photo?", "Do I need a photo?")],
    ),
    (
        "What is the fee; how long does it take?",
        [
            ("What is the fee", "What is the fee"),
            ("how long does it take?", "how long does it take?"),
        ],
    ),
    (
        "How much does it cost to renew a passport? And how long does it take?",
        [
            (
                "How much does it cost to renew a passport?",
                "How much does it cost to renew a passport?",
            ),
            ("how long does it take?", "how long does it take renew passport"),
        ],
    ),
    (
        "Who is eligible, and how do I apply?",
        [("Who is eligible", "Who is eligible"), ("how do I apply?", "how do I apply eligible")],
    ),
    (
        # each part has its own topic: nothing is carried
        "How much is a passport and what does an ID card cost?",
        [
            ("How much is a passport", "How much is a passport"),
            ("what does an ID card cost?", "what does an ID card cost?"),
        ],
    ),
    (
        # a pronoun points back at the first part's topic
        "How long is parental leave and is it paid?",
        [
            ("How long is parental leave", "How long is parental leave"),
            ("is it paid?", "is it paid parental leave"),
        ],
    ),
    (
        "What are the fees and what are the opening hours?",
        [
            ("What are the fees", "What are the fees"),
            ("what are the opening hours?", "what are the opening hours?"),
        ],
    ),
    (
        "Where is the passport office; how much is it and what should I bring?",
        [
            ("Where is the passport office", "Where is the passport office"),
            ("how much is it", "how much is it passport"),
            ("what should I bring?", "what should I bring passport"),
        ],
    ),
    (
        "護照換發要多少錢，可以線上申請嗎",
        [("護照換發要多少錢", "護照換發要多少錢"), ("可以線上申請嗎", "可以線上申請嗎 護照 換發")],
    ),
    (
        "停車許可證一年多少錢？另外要帶哪些文件？",
        [
            ("停車許可證一年多少錢？", "停車許可證一年多少錢？"),
            ("要帶哪些文件？", "要帶哪些文件 停車 許可證 一年"),
        ],
    ),
    # the words of a validity asked name its kind, not the topic: carried, "valid" would
    # make the processing time a validity asked too
    (
        "How long is a passport valid and how long does processing take?",
        [
            ("How long is a passport valid", "How long is a passport valid"),
            ("how long does processing take?", "how long does processing take passport"),
        ],
    ),
    (
        "停車許可證有效期多久？要帶什麼文件？",
        [
            ("停車許可證有效期多久？", "停車許可證有效期多久？"),
            ("要帶什麼文件？", "要帶什麼文件 停車 許可證"),
        ],
    ),
]

SINGLE = [
    "How much does a passport renewal cost?",
    # a coordinated noun phrase under one interrogative: one ask
    "What are the fees and opening hours?",
    "How do I apply and pay for a permit?",
    "Where and when can I renew?",
    "What happens if I lose my passport and someone uses it?",
    "護照換發的費用和應備文件是什麼？",
    "護照和身分證要多少錢？",
    "停車許可證一年多少錢？",
    # a leading frame belongs to the ask after it
    "在什麼情況下，護照會被註銷？",
    "如果我在國外，要怎麼換護照？",
    "我的護照過期了，要怎麼換發？",
    # an English comma alone is no boundary: "When I arrive" is no ask of its own
    "When I arrive, where do I go?",
    # a topic, then the question
    "Passport renewal? How much?",
    # an auxiliary without a subject, a question word before one: the same ask goes on
    "Can I share a search query from google and have the results appear the same?",
    "Why can facebook see when I am and when I am not logged into my gmail account.",
    # a clause going on, a number word that asks nothing, a quotation's question
    "明尼亞波利斯湖人成立後用第一選秀選擇了哪位球員，為未來幾年王朝奠下基礎?",
    "嘉義地方選舉中，國民黨只要對上許家班幾乎都會落敗，但在10屆的省議員選舉中有誰曾勝選過?",
    "幾千年來，電只不過是學者們好奇的智慧玩物，直到1600年哪位學者後才有嚴謹的研究?",
    "北朝幾個朝代中，哪個朝代最積極建築長城?",
    "律令系統分為不同的幾部法典，其一直被作為日本主要的律法直到哪一年?",
    "「我們曾經提過把外蒙古歸還中國是不是可以。他們說不可以」，此處的他們指的是誰?",
    # interrogatives joined by 以及 ask one thing
    "鼠疫耶氏菌第一个变体如何以及何时进入欧洲？",
    # more than three asks: the single path
    "What is A and what is B and what is C and what is D?",
    "",
]


@pytest.mark.parametrize(("question", "parts"), SPLIT)
def test_two_and_three_part_questions_are_split(
    question: str, parts: list[tuple[str, str]]
) -> None:
    assert [(p.text, p.query) for p in split_question(question)] == parts


@pytest.mark.parametrize("question", SINGLE)
def test_single_asks_are_not_split(question: str) -> None:
    assert split_question(question) == []
