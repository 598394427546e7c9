"""Which messages ask for a person as a whole, in English and Chinese, and which ask the
documents something about people."""

from __future__ import annotations

import pytest

from graph.person_asked import asks_for_person
from textkit.scripts import normalise_width


@pytest.mark.parametrize(
    "message",
    [
        "Can I talk to a real person?",
        "I want to speak with a human",
        "I'd like to chat with an agent please",
        "hi, can I talk to a human?",
        "Could you transfer me to a human?",
        "connect me to an agent",
        "I need a real person",
        "real person please",
        "Human",
        "Can I speak to someone about my passport renewal?",
        "我要找真人客服",
        "可以轉人工嗎？",
        "你好，我要转人工",
        "請幫我轉接專人",
        "我想跟真人說話",
        "有真人嗎？",
        "找客服人员",
        "Is there a real person I can talk to?",
        "Can I get a human?",
        "I'd rather talk to a person",
        "I don't want a bot, give me a human",
        "I want to talk to a human, not a bot",
        "connect me to customer support",
        "能不能找個真人",
        "幫我轉一下人工",
        "有人在嗎",
        "我要聯繫客服",
        "Can I talk to anyone?",
        "Transfer to agent",
        "Can I talk to my case officer?",
        "I need to speak to someone urgently",
        "我要找承辦人",
        "轉人工，謝謝",
        "我要轉人工客服，我等很久了",
        "我要跟真人講話",
        "我想找你們主管",
        "麻煩轉接",
        "我不要機器人，我要真人",
    ],
)
def test_a_request_for_a_person_is_recognised(message: str) -> None:
    # as the pipeline reads it (full-width forms folded)
    assert asks_for_person(normalise_width(message))


@pytest.mark.parametrize(
    "message",
    [
        "How do I contact a person at the tax office?",
        "Is the counter staffed by a real person on Saturday?",
        "Can a person renew a passport for someone else?",
        "What does a human resources officer do?",
        "How much does a real estate agent cost?",
        "agent fees for passport renewal",
        "客服電話是多少？",
        "人工湖開放時間",
        "工作人員幾點上班？",
        "請問人工費用多少錢？",
        # manual processing, and questions about reaching one
        "要人工處理嗎",
        "需要工作人员处理吗",
        "轉人工需要多久？",
        "客服專線轉接真人要按幾號？",
        "Can I chat with an agent on WhatsApp?",
        "Is there a person at the desk on Sunday?",
        "Can I speak to an officer for free?",
        "Can I talk to a person about the fee, and how much is it?",
        # whether a step needs a person, and other meanings of 人
        "需要人工嗎？",
        "需要工作人員嗎？",
        "有工作人員嗎？",
        "可以接人嗎？",
        "可以換人嗎？",
        "我要找人",
        "轉帳要多久？",
        "转账",
        "Agent",
        "",
        "Can I talk to a person " + "about the many forms I have to fill in " * 3,
    ],
)
def test_a_question_about_people_is_no_request_for_one(message: str) -> None:
    assert not asks_for_person(normalise_width(message))
