"""A city-service FAQ of 30 entries, each with a question a citizen asks in other words.

Written for the tests, not drawn from any evaluation set. Like real users'
paraphrases, most share a word or two with their entry and many share none of
its key words ("the cash machine swallowed my card" for "the ATM retains my
card"); the cross-language entries are Traditional Chinese asked in English or
Simplified Chinese.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Entry:
    """An FAQ entry and a paraphrase of its question."""

    question: str
    answer: str
    asked: str


ENTRIES = [
    Entry(
        "How do I renew my passport?",
        "Bring your current passport and one photo to any service centre; renewal takes"
        " four working days and costs 1,300 dollars.",
        "my travel document expires next month, what should I do",
    ),
    Entry(
        "What are the opening hours of the City Service Centre?",
        "The centre is open Monday to Friday from 8:30 to 17:30 and on Saturday mornings.",
        "is the city service office open on saturday",
    ),
    Entry(
        "How can I report a broken streetlight?",
        "Call the 1999 hotline or use the city app; a crew repairs lamps within three days.",
        "the lamp outside my house has been dark for a week",
    ),
    Entry(
        "Which days is household waste collected?",
        "Garbage trucks come on Monday, Tuesday, Thursday, Friday and Saturday evenings.",
        "which day is garbage pickup",
    ),
    Entry(
        "How do I apply for a residential parking permit?",
        "Submit your vehicle registration and proof of address at the district office.",
        "how do I get a parking sticker for my street",
    ),
    Entry(
        "What should I do if the ATM at a city office retains my card?",
        "Call the number on the machine; retained cards are returned by your bank within"
        " five days.",
        "the cash machine swallowed my card",
    ),
    Entry(
        "How do I get a library card?",
        "Library cards are free for residents; bring an ID to any branch library.",
        "how can I become a library member to borrow books",
    ),
    Entry(
        "Can I pay my water bill online?",
        "Yes, water bills can be paid through the city payment portal or by direct debit.",
        "is there a way to settle what I owe the water company from home",
    ),
    Entry(
        "How do I register the birth of a child?",
        "Register within 60 days at a household registration office with the hospital certificate.",
        "how do we register our newborn baby",
    ),
    Entry(
        "Where can I dispose of large furniture?",
        "Book a free bulky-item pickup through the city app; sofas and beds are collected"
        " on Wednesdays.",
        "how do I get rid of an old sofa",
    ),
    Entry(
        "How do I apply for a building permit for a home renovation?",
        "Submit drawings signed by a licensed architect to the urban development bureau.",
        "we want to add a room to our house, whose approval do we need",
    ),
    Entry(
        "What vaccines do children need before starting school?",
        "Children need measles, polio and DTP boosters; the school nurse checks the record.",
        "which shots must my kid have for first grade",
    ),
    Entry(
        "How can I get a refund for a cancelled sports class?",
        "Refunds for cancelled classes are paid to the original card within ten days.",
        "the swimming lesson was called off, will I get my money back",
    ),
    Entry(
        "How do I report noise from a neighbour at night?",
        "Call the police non-emergency line; officers visit and can issue a fine.",
        "the people next door play loud music until 3 am",
    ),
    Entry(
        "Is there financial help for low-income families?",
        "Households under the income threshold can apply for a monthly living allowance.",
        "we are struggling to make ends meet, is any support available",
    ),
    Entry(
        "How do I change the address on my ID card?",
        "Update your household registration first; the ID card is reissued the same day.",
        "I moved house, how do I update my address",
    ),
    Entry(
        "Where can I recycle old batteries and electronics?",
        "Drop batteries and e-waste at any supermarket collection box or recycling station.",
        "what do I do with a dead phone and used AA cells",
    ),
    Entry(
        "How do I book a table tennis court at the sports centre?",
        "Courts are booked online up to seven days ahead; each slot is one hour.",
        "I want to reserve a place to play ping pong on Saturday",
    ),
    Entry(
        "What documents do I need to open a business?",
        "A company registration, a tax number and a lease for the premises are required.",
        "I'm starting a small shop, what paperwork must I prepare",
    ),
    Entry(
        "How do I apply for a senior citizen bus pass?",
        "Residents aged 65 and over get a free pass at any service centre with their ID.",
        "my grandmother turned 65, can she ride public transport for free",
    ),
    Entry(
        "What do I do if my dog gets lost?",
        "Report it to the animal shelter hotline and check the shelter's found-pets page.",
        "my puppy ran away this morning",
    ),
    Entry(
        "How do I get a copy of my marriage certificate?",
        "Request a certified copy at any household registration office for 100 dollars.",
        "where can I get our marriage record for a visa",
    ),
    Entry(
        "How can I appeal a parking fine?",
        "File an appeal online within 30 days with photos or other evidence.",
        "I got a ticket for my car but I think it's unfair",
    ),
    Entry(
        "When is the swimming pool closed for maintenance?",
        "The public pool closes for cleaning every first Monday of the month.",
        "is the pool shut on some days",
    ),
    Entry(
        "How do I request a tree trimming near power lines?",
        "Call the power company; branches touching lines are trimmed free of charge.",
        "branches are touching the electric cables outside",
    ),
    Entry(
        "How do I apply for a childcare subsidy?",
        "Parents of children under two apply online with their tax return; the subsidy is"
        " 5,000 dollars a month.",
        "is there money from the city for daycare costs",
    ),
    Entry(
        "Can I get a permit to hold a street party?",
        "Apply to the district office at least 30 days ahead; roads can be closed until 22:00.",
        "we'd like to close our road for a neighbourhood celebration",
    ),
    Entry(
        "How do I report a pothole?",
        "Send a photo and the location through the city app; roads are patched within a week.",
        "where do I report a hole in the road",
    ),
    Entry(
        "Where do I pay property tax?",
        "Property tax is paid at any bank, convenience store or online before 31 May.",
        "how can I settle the annual tax on my flat",
    ),
    Entry(
        "How do I register to vote?",
        "Citizens are registered automatically at their household address; check it online.",
        "what must I do to take part in the next election",
    ),
]

# Traditional-Chinese entries asked in English or Simplified Chinese: nothing
# but the meaning (and the script conversion) connects the two.
CROSS_LANGUAGE = [
    Entry(
        "市民卡遺失了怎麼辦？",
        "請先撥打客服專線掛失，再到任一服務中心補發，工本費一百元。",
        "what should I do about a missing citizen card",
    ),
    Entry(
        "公園可以帶狗進去嗎？",
        "狗必須繫上牽繩並由飼主清理排泄物，部分兒童遊戲區禁止進入。",
        "能不能带宠物去公园散步",
    ),
    Entry(
        "颱風天垃圾車還會來收垃圾嗎？",
        "颱風警報發布期間暫停收運，恢復後依原時間收運。",
        "is trash still collected during a typhoon",
    ),
    Entry(
        "如何申請路邊攤販營業許可？",
        "攜帶身分證與攤位位置圖到市場處申請，審核約需十四天。",
        "how do I get a licence to sell food from a street stall",
    ),
]


def faq_page(entries: list[Entry]) -> str:
    """The entries as one FAQ page ("Q: … / A: …")."""
    return "\n\n".join(f"Q: {e.question}\nA: {e.answer}" for e in entries)
