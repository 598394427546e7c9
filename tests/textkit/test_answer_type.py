"""The kind of answer a question asks for, and whether a sentence holds one, in English and
Chinese alike."""

from __future__ import annotations

import time

import pytest

from textkit.answer_type import answer_kinds, asked_type, carries, has_amount, holds


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("How many works of art are in the collection?", "amount"),
        ("收藏品中大约包含多少件艺术品？", "amount"),
        ("收藏品中大約包含多少件藝術品？", "amount"),
        ("How long did the war last?", "amount"),
        ("When was the university founded?", "date"),
        ("In what year did the treaty end the war?", "date"),
        ("大学是哪一年成立的？", "date"),
        ("大學是什麼時候成立的？", "date"),
        ("Who wrote the poem?", "name"),
        ("这首诗是谁写的？", "name"),
        ("這首詩是誰寫的？", "name"),
        ("Is the museum open on Sundays?", None),
        ("博物馆周日开放吗？", None),
        ("What is the capital of Poland?", None),
        ("他几乎每天都去吗？", None),  # 几乎 is "almost", not "how many"
    ],
)
def test_the_kind_of_answer_asked_is_read_in_either_language(
    question: str, kind: str | None
) -> None:
    assert asked_type(question) == kind


@pytest.mark.parametrize(
    ("sentence", "kind", "holds"),
    [
        ("The collection holds over 70,000 works.", "amount", True),
        ("超过70,000件来自东亚国家的艺术品。", "amount", True),
        ("约有二十万平民被杀害。", "amount", True),
        ("Hundreds of people came to the opening.", "amount", True),
        ("数百人参加了开幕式。", "amount", True),
        ("The collection is large and varied.", "amount", False),
        ("这是一位作家的作品。", "amount", False),  # 一位 is "a", not a figure
        ("The university was founded in 1891.", "date", True),
        ("大学成立于1891年。", "date", True),
        ("大學成立於十九世紀。", "date", True),
        ("It was built in the 1920s.", "date", True),
        ("The university was founded by merchants.", "date", False),
        ("大学由商人创办。", "date", False),
        ("The poem was written by Percy Shelley.", "name", True),
        ("The poem was written in anger.", "name", False),
        ("这首诗是雪莱写的。", "name", True),  # Chinese names follow no pattern: not judged
        ("Anything at all.", None, True),
    ],
)
def test_a_sentence_holds_the_kind_asked_or_not(sentence: str, kind: str, holds: bool) -> None:
    assert carries(sentence, kind) is holds  # type: ignore[arg-type]


def test_an_amount_is_a_figure_in_any_writing() -> None:
    assert has_amount("The fee is 1,300 dollars.")
    assert has_amount("费用是一千三百元。")
    assert has_amount("It costs thirteen hundred dollars.")
    assert not has_amount("这是一个问题。")


def test_a_phone_number_or_a_form_code_is_no_amount() -> None:
    assert not has_amount("Call our toll-free hotline 0800-123-456.")
    assert not has_amount("Call +852 2345 6789 for an appointment.")
    assert not has_amount("Fill in form DL-2 and bring it to the counter.")
    assert has_amount("Call 2345 6789; the fee is 1,300 dollars.")


def test_a_number_dialled_is_no_year_and_what_hour_asks_a_time() -> None:
    assert not carries("民眾可以撥打 1999 預約臨櫃服務。", "date")
    assert not carries("Call 1999 to book a visit.", "date")
    assert not carries("Call us on 1999.", "date")  # the full stop ends the sentence
    assert not carries("Phone enquiries: 1999 (free from local numbers).", "date")
    assert not carries("电话查询：1999", "date")
    assert carries("The library opened in 1999.", "date")
    # the number dialled only: the year after it is one, and a number asked for stays
    assert carries("环保热线 1823 2019年启用。", "date")
    assert carries("請撥打 2025 查詢場地。", "amount")
    assert carries("Call 2 hours ahead.", "amount")
    assert answer_kinds("市民服务中心星期六几点开门？") == ["time"]
    assert answer_kinds("图书馆几时开放？") == ["date"]
    assert answer_kinds("可以借几本书？") == ["count", "amount"]


def test_a_number_in_an_address_or_a_form_code_counts_nothing() -> None:
    assert not holds("The City Service Centre at 1 Harbour Road is open Monday to Friday.", "count")
    assert not holds("Bring the completed form PS-11 and your old passport.", "count")
    assert holds("Each household may apply for 2 permits.", "count")
    assert holds("每戶最多申請兩張。", "count")


def test_one_picked_out_by_any_or_each_counts_nothing() -> None:
    # "any one branch" / 任何一間分館 names where, not how many
    assert not holds("請攜帶身份證件到任何一間分館的服務檯辦理。", "count")
    assert not holds("請攜帶身份證件到任何 一間分館的服務檯辦理。", "count")
    assert not holds("每 一位申請人須親身辦理。", "count")
    assert not holds("Apply in person at any one branch.", "count")
    assert not holds("每一位申請人須親身辦理。", "count")
    assert holds("可以在線續借一次。", "count")
    assert holds("You may borrow one book at a time.", "count")
    assert holds("每張借書證最多可借二十冊圖書。", "count")


def test_a_rank_asked_is_no_amount_nor_count() -> None:
    # 第幾 asks an ordinal ("the second-largest"): no figure of the kind an amount or a
    # count is, so a sentence stating the rank in words answers it
    assert answer_kinds("巴西的大豆產量在全球排第幾？") == []
    assert answer_kinds("巴西的大豆产量在全球排第几名？") == []
    assert "count" in answer_kinds("停車證每戶可以申請幾張？")


@pytest.mark.parametrize(
    "question",
    [
        "博物馆周日开放吗？",
        "市民服務中心星期日有開嗎？",
        "圖書館週一有開嗎？",
        "Is the museum open on Sundays?",
    ],
)
def test_whether_it_is_open_asks_a_time(question: str) -> None:
    assert "time" in answer_kinds(question)


@pytest.mark.parametrize(
    "question",
    [
        "可以开发票吗？",
        "能开证明吗",
        "开车要带什么？",
        # 开 of another word, or no day asked of
        "理事会会议记录公开吗？",
        "市民服务中心有开通网上预约吗？",
        "开不开发票？",
        "门可以打开吗？",
    ],
)
def test_opening_an_invoice_or_a_car_asks_no_time(question: str) -> None:
    assert "time" not in answer_kinds(question)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        # "when" opening its clause, or asked through another word, asks a date
        ("When does the library open?", "date"),
        ("Do you know when the library opens?", "date"),
        ("Can you tell me when the office opens?", "date"),
        ("Until when is the permit valid?", "date"),
        ("What is the fee and when is it due?", "date"),
        ("hi, when does the pool open", "date"),
        ("Passport renewal - when?", "date"),
        ("When the form is due?", "date"),
        ("Is there any news on when the pool reopens?", "date"),
        ("How can I tell when my password expires?", "date"),
        ("Passport renewal, when?", "date"),
        # after a question already asked, or opening a statement a question follows,
        # it joins a condition: the question asks what it asks
        ("What should I do when I lose my passport?", None),
        ("What happens to my account when I die?", None),
        ("Is there a fee when I renew?", None),
        ("When I lose my passport, what should I do?", None),
        ("when i renew my passport do i need a photo?", None),
        ("How old was the pilot when he flew to Paris?", "amount"),
        ("Who do I call when my card is stolen?", "name"),
        ("who do I tell when I'm sick?", "name"),
        # a statement before it: a problem reported, not a date asked
        ("i get an error when i log in to outlook", None),
        ("Laptop won't turn on when unplugged, what now?", None),
        ("When renewing online, what do I upload?", None),
    ],
)
def test_when_asks_a_date_only_where_it_asks(question: str, kind: str | None) -> None:
    assert asked_type(question) == kind


def test_a_condition_with_when_leaves_the_kinds_asked_as_they_are() -> None:
    asked = answer_kinds("How much does it cost when I renew my passport?")
    assert asked == ["price", "maybe_price"]
    assert answer_kinds("What should I do when my parking permit expires?") == []
    assert answer_kinds("When does my parking permit expire?") == ["date"]


@pytest.mark.parametrize(
    ("question", "price"),
    [
        ("How is overtime paid?", False),  # the way it is paid
        ("How do I pay a parking fine?", False),
        ("how are contractors paid", False),
        ("How much is overtime paid?", True),
        ("How is the fee calculated?", True),  # a price's own noun
        ("What do I pay for a replacement card?", True),
        ("What is the pay for a night shift?", True),
        ("Can I pay by card?", False),
        ("How much does the pool cost?", True),
        # "how much?" naming no measure asks the price of the thing spoken of
        ("how much?", True),
        ("And how much is it?", True),
        ("how much? renew passport", True),
        ("How much is left?", False),
        ("how much water do I need?", False),
    ],
)
def test_how_a_thing_is_paid_asks_no_price(question: str, price: bool) -> None:
    assert ("price" in answer_kinds(question)) is price


def test_a_forums_state_tag_is_no_closing_time() -> None:
    assert answer_kinds("Reverse image search engine [closed]") == []
    assert answer_kinds("Best tool to find a meeting time? [duplicate] [closed]") == []
    assert answer_kinds("When is the library closed?") == ["time", "date"]
    assert answer_kinds("Is the pool closed on Sundays?") == ["time"]


@pytest.mark.parametrize(
    ("question", "time"),
    [
        ("How do I open a bank account?", False),  # the verb acts on a thing
        ("How do I close my account?", False),
        ("can't open the department's files on the network", False),
        ("Did the receiver open the mail?", False),
        ("When does the library open?", True),
        ("Is the pool open on Sundays?", True),
        ("Is the pool open this weekend?", True),  # a time after the verb
        ("Is the office closed the whole day?", True),
        ("what time does the bank close", True),
    ],
)
def test_opening_a_thing_asks_no_hours(question: str, time: bool) -> None:
    assert ("time" in answer_kinds(question)) is time


@pytest.mark.parametrize(
    ("sentence", "may_be_a_price"),
    [
        # a price written bare, or with a currency or a rate the patterns do not know
        ("Adults 20, children 10.", True),
        ("Tickets: 4.50 EUR", True),
        ("Copies cost 0.20 per page.", True),
        ("Parking is 2 per hour.", True),
        ("Membership is 120 a year.", True),
        ("Volunteers are paid 18 an hour.", True),
        ("成人 50，兒童 25", True),
        ("港幣13.6", True),
        ("每月五十", True),
        ("入場券每張 150", True),
        ("Phone consultation 200 per session.", True),
        ("電話諮詢每次 200。", True),
        ("Telephone interpreting 150 per hour.", True),
        ("SMS reminders cost 2 each.", True),
        ("Renewal by phone 25.", True),
        ("What does a ticket cost? Adults 20, children 10.", True),
        ("入場費 500 日圓", True),
        ("Fares: bus 5, tram 3.", True),
        ("Phone consultation fee: 200", True),
        ("電話諮詢：200", True),
        ("Daily rate 10-20.", True),
        ("Opening ceremony tickets: 10 to 20.", True),
        ("營業時間內收費 10-20", True),
        ("Fee: 100 - 500", True),
        ("Deposit 1000-5000.", True),
        ("Tickets 1 day 50 3 days 120", True),
        # figures that are no sum of money
        ("Open Monday to Friday from 8:30 to 17:30.", False),
        ("The City Service Centre at 1 Harbour Road opens at 9am.", False),
        ("Queue tickets stop being issued 30 minutes before closing.", False),
        ("Phone enquiries: 1999 (free from local numbers).", False),
        ("Processing takes 4 working days at the counter.", False),
        ("Room 101 on the 3rd floor.", False),
        ("Take bus 38 to the centre.", False),
        ("開放時間為上午九時至下午五時。", False),
        ("申請後約七個工作天核發。", False),
        ("服務熱線：1823", False),
        ("請致電 2345 6789 查詢。", False),
        ("星期三休館", False),
        ("The Harbour Museum is open daily from 10 to 6.", False),
        ("Opening hours: Mon-Fri 9-5, Sat 9.00 to 12.00.", False),
        ("Processing takes 2-3 weeks.", False),
        ("申請需時 7 至 10 個工作天", False),
        ("A permit lasts twelve months.", False),
        ("Tel.: 1823", False),
        ("Phone (852) 2345 6789", False),
        ("Fax no. 2345 6789", False),
        ("Ring 1823 to book.", False),
        ("諮詢：1823", False),
        ("Closed on 25 December.", False),
        ("Apply by 30/06/2025", False),
        ("Children under 12 must be accompanied.", False),
        ("12歲以下須由成人陪同", False),
        ("Pass rate 85%", False),
        ("Exit A2, Rm. 101.", False),
        ("開放時間：星期一至五上午9:00至下午5:00", False),
        ("Mon-Fri 9-5.", False),
        ("週一至週五 9-5", False),
        ("Lunch 1-2pm", False),
        ("The library opens at 9 and closes at 8.", False),
        ("a 30-minute session", False),
        ("From 1 April 2025", False),
        ("Children aged 6 to 12", False),
        ("6至12歲兒童", False),
        ("3/F, Shop 12", False),
        ("50 percent off", False),
        ("八五折", False),
        ("Press 1 for English", False),
    ],
)
def test_a_bare_figure_may_answer_a_price_but_an_hour_or_a_phone_number_does_not(
    sentence: str, may_be_a_price: bool
) -> None:
    assert holds(sentence, "maybe_price") is may_be_a_price


@pytest.mark.parametrize(
    "run",
    [
        "1" * 100_000,
        "一二三" * 30_000,
        "open " + "9-" * 50_000,
        "call " + "1" * 100_000 + " per",
        "1 " * 50_000,
        "9:00至" * 10_000,
    ],
)
def test_a_long_run_of_digits_is_read_in_linear_time(run: str) -> None:
    started = time.perf_counter()
    holds(run, "maybe_price")
    # quadratic patterns took minutes on 100,000 digits; linear ones a fraction of a second
    assert time.perf_counter() - started < 5


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Can I hide my likes from my friends? [closed]", None),
        ("When does the library close? [closed]", "time"),
        ("How much is a ticket? [duplicate] 【已解決】", "price"),
        ("[Help] How much is a ticket?", "price"),
    ],
)
def test_a_trailing_tag_is_no_part_of_what_is_asked(question: str, kind: str | None) -> None:
    kinds = answer_kinds(question)
    assert (kinds[0] if kinds else None) == kind


def test_a_message_of_many_bracketed_words_is_read_in_linear_time() -> None:
    started = time.perf_counter()
    answer_kinds("[a] " * 25_000 + "how much?")
    # the end-anchored pattern took about 2 s on 4,000 tags, and minutes on 25,000
    assert time.perf_counter() - started < 2


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        ("The fee is 5 * 3 _dollars_.", "price"),
        ("Entry costs **$5**.", "price"),
        ("Processing takes _ten working days_.", "duration"),
    ],
)
def test_markdown_emphasis_hides_no_answer(sentence: str, kind: str) -> None:
    assert holds(sentence, kind)
