"""Word overlap across English and Chinese through the CC-CEDICT dictionary."""

from __future__ import annotations

from textkit.bilingual import (
    asked_words,
    available,
    coverage,
    holds_every_word,
    named_share,
    units,
)


def test_the_dictionary_ships_with_its_package() -> None:
    assert available()


def test_an_english_question_finds_its_words_in_a_chinese_sentence() -> None:
    question = "How many people were killed in the Warsaw uprising in 1944?"
    answer = "1944年华沙起义期间，约有二十万平民被杀害。"
    unrelated = "这座城市有许多博物馆和公园。"
    assert coverage(question, answer) >= 0.6
    assert coverage(question, unrelated) == 0.0


def test_a_chinese_question_finds_its_words_in_an_english_sentence() -> None:
    question = "華沙起義中有多少人被殺？"  # Traditional: read as Simplified
    answer = "About 200,000 civilians were killed during the 1944 Warsaw Uprising."
    assert coverage(question, answer) >= 0.5
    assert coverage(question, "The city has many museums and parks.") == 0.0


def test_numbers_meet_as_written_alike() -> None:
    assert frozenset({"#1300"}) in units("The fee is 1,300 dollars.")
    assert coverage("費用是一千三百元嗎", "The fee is 1,300 dollars.") > 0.0


def test_each_gloss_of_a_sense_counts() -> None:
    # 遺失: "to lose; to leave behind (inadvertently)", two glosses of one sense, each
    # short enough to be a translation (read as one, it was too long and gave none)
    lose = "What should I do if I lose my parking permit?"
    assert coverage(lose, "停車許可證遺失時，請填寫補發申請表。") == 1.0


def test_a_word_and_the_parts_the_search_cut_gives_are_one_word() -> None:
    # the search cut gives 蒙特利尔 (a name the dictionary lacks) as 蒙特, 特利, 利尔,
    # 蒙特利, 特利尔 and the whole: it was four words of "Terry" the answer never holds
    question = "蒙特利爾什麼時候被佔領的？"
    assert len(units(question)) == 3  # Montreal (unknown), when, captured
    answer = "Montreal was captured by the British in September 1760."
    assert coverage(question, answer) == 1 / 3  # captured (it was 1 of 6)
    # 定居者 and its part 定居 are one word, found by either's gloss
    assert coverage("原來的定居者是誰", "The original settlers came from Norway.") == 1.0


def test_a_picked_yi_is_no_figure_an_answer_must_hold() -> None:
    # 哪一年: "which year", no number 1 asked
    question = "南非學校法案是哪一年通過的？"
    assert frozenset({"#1"}) not in units(question)
    answer = "The bill on South African schools was passed in 1996."
    assert coverage(question, answer) == 1.0
    assert frozenset({"#1"}) not in units("每一位申請人都要帶身分證")
    # counted, or a name's number, it is one
    assert frozenset({"#1"}) in units("每戶最多申請一張")
    assert frozenset({"#1"}) in units("一號航廈在哪裡")
    assert coverage("一號航廈在哪裡", "Terminal 2 is at the east end.") < coverage(
        "一號航廈在哪裡", "Terminal 1 is at the west end."
    )
    assert frozenset({"#1300"}) in units("一千三百元")


def test_a_word_standing_alone_besides_inside_a_longer_one_counts() -> None:
    # 学生 is a part of 学生证 here and a word of its own after 和
    assert len(units("學生證和學生的區別")) == 3


def test_the_words_of_asking_are_no_words_an_answer_must_hold() -> None:
    # "mean" asks for a definition; a passage holding a word for "mean" is not about it
    assert coverage("What does 'plastid' mean?", "这个词的意思是“城市”。") == 0.0
    assert coverage("What does 'plastid' mean?", "质体（plastid）是植物细胞中的细胞器。") == 1.0


def test_a_question_keeps_its_case_and_its_content_words() -> None:
    # a capitalised "May" is a month; "mean" in "the mean temperature" is asked about
    assert frozenset({"#5"}) in units(asked_words("Was the form filed in May?"))
    assert frozenset({"mean"}) in units(asked_words("What is the mean temperature in July?"))
    # 合同 holds 同: "a contract of one year" states a 1
    assert frozenset({"#1"}) in units("合同一年")


def test_a_first_is_read_as_its_word_not_also_as_a_number() -> None:
    # 第一位: "first", as the English ordinal is read; not a 1 no answer writes
    question = "第一位獲獎者是誰？"
    assert coverage(question, "The first winner of the award was Jane Smith.") == 1.0
    # a definition asked in Chinese: 意思 ("meaning") is how it is asked
    assert coverage("KPI是什麼意思？", "KPI 是關鍵績效指標。") == 1.0


def test_one_word_of_the_text_names_one_word_of_the_question() -> None:
    hours = "office hours. The City Service Centre at 1 Harbour Road is open on Monday."
    assert named_share("服务中心", hours) == 1.0
    # 税务 ("taxation services") and 服务中心 both meet "Service": one of them is named
    assert coverage("税务服务中心", hours) == 1.0
    assert named_share("税务服务中心", hours) == 0.5
    assert named_share("停车场", hours) == 0.0
    # a word the rest of the question holds names nothing: 窗口 is glossed "opening"
    assert named_share("窗口", hours) == 1.0
    assert named_share("窗口", hours, besides="几点开门") == 0.0


def test_every_word_asked_must_be_held_and_an_unread_word_is_not() -> None:
    fee = "How much does it cost to renew a passport? The renewal fee is 1,300 dollars, paid."
    assert holds_every_word("更新护照要付的费用", fee)
    assert not holds_every_word("网上更新护照费用", fee)  # online
    assert not holds_every_word("急件更新护照费用", fee)  # 急件: no gloss, not no word


def test_an_irregular_verbs_past_form_meets_the_dictionarys_base_form() -> None:
    # 丢: "to lose"; "lost" is read as "lose", as the word test reads it in one language
    assert frozenset({"lose"}) in units("I lost my card")
    assert coverage("I lost my transit card", "卡丢了怎么办？") > coverage(
        "I misplaced my transit card", "卡丢了怎么办？"
    )
