"""A message that asks for a person instead of an answer: "Can I talk to a real person?",
"transfer me to an agent", 我要找真人客服, 可以轉人工嗎？

Such a message has no answer in the documents; searching them for it would end in
"our documents don't answer this". The planner's rules end the turn without a
search (and without a model call) and the reply says who to contact; where staff
can take over, the core adds "Ask a person" to it as to any refusal.

Only a message that is the request as a whole (after a greeting or "I don't want
a bot", with a "please", "not a bot" or what it is about after it: "Can I speak
to someone about my passport renewal?" asks for a person all the same, and gets
the contact and the button). "How do I contact a person at the tax office?",
"Is the counter staffed by a real person on Saturday?", 人工處理嗎 (manual
processing), 需要工作人員嗎？ (is staff needed?), 我要找人 (looking for someone) and
轉人工需要多久？ ask the documents something. None of the 7,267 distinct questions
of the evaluation and FAQ sets is read as a request (2026-11-30).
"""

from __future__ import annotations

import re

_PEOPLE = (
    r"(?:(?:a|an|some|your|one\s+of\s+your|my)\s+)?(?:real\s+|actual\s+|live\s+|human\s+)?"
    r"(?:person|human(?:\s+being)?|agent|someone|somebody|anyone|anybody|"
    r"staff(?:\s+member)?|operator|representative|rep|officer|case\s+officer|colleague|"
    r"manager|supervisor|customer\s+(?:service|support)(?:\s+(?:agent|team))?|"
    r"support(?:\s+team)?)"
)
_I_WANT = r"i(?:\s+(?:want|need|would\s+(?:like|rather)|prefer)|['’]d\s+(?:like|rather))"
_VERB = r"(?:talk|speak|chat)"
_TALK = _VERB + r"\s+(?:to|with)\s+"
# what may follow the request: what about (a person is asked for all the same), "please",
# "not a bot"; a question besides ("…, and how much is it?") is a question
_TAIL = (
    r"(?:\s+(?:about|regarding|for(?!\s+free))\s+[^?.!,;]{1,60})?(?:\s+(?:in\s+\w+|urgently|now))?"
    r"(?:[\s,]+please)?"
    r"(?:[\s,]+(?:not|rather\s+than)\s+(?:a\s+|the\s+)?(?:bot|robot|machine))?[\s?.!]*"
)
_PERSON_EN = re.compile(
    r"^\s*(?:(?:hi|hello|hey)(?:\s+there)?[\s,!.]+|good\s+(?:morning|afternoon|evening)"
    r"[\s,!.]+)?(?:please[\s,]+)?(?:i\s+don['’]?t\s+want\s+(?:a\s+)?(?:bot|robot)[\s,.;]+)?(?:"
    # "can I talk to a person", "I want to speak with a human", "I'd rather chat with an agent"
    r"(?:(?:can|could|may)\s+i\s+(?:please\s+)?|"
    + _I_WANT
    + r"(?:\s+to)?\s+|let\s+me\s+)?"
    + _TALK
    + _PEOPLE
    + r"|"
    # "is there a real person I can talk to?", "is there anyone to speak with"
    r"is\s+there\s+(?:any\s*)?"
    + _PEOPLE
    + r"\s+(?:i\s+can\s+|to\s+)"
    + _VERB
    + r"(?:\s+(?:to|with))?|"
    # "connect me to an agent", "transfer to agent", "put me through to someone"
    r"(?:(?:can|could)\s+you\s+(?:please\s+)?)?(?:connect|transfer|put)\s+(?:me\s+)?"
    r"(?:through\s+)?(?:to|with)\s+" + _PEOPLE + r"|"
    # "I want a real person", "I need help from a human", "can I get a human", "give me a human"
    r"(?:" + _I_WANT + r"(?:\s+help\s+from)?|(?:can|could)\s+i\s+(?:get|have)|(?:get|give)\s+me)"
    r"\s+" + _PEOPLE + r"|"
    # "real person", "human please", "customer service"
    r"(?:a\s+)?(?:real|live|human)\s+(?:person|agent|being)|human|customer\s+service"
    r")" + _TAIL + r"$",
    re.IGNORECASE,
)
_CHINESE_PEOPLE = (
    r"(?:(?:你們|你们)(?:的)?)?(?:個|个|位)?(?:真人(?:客服)?|人工(?:客服|服務|服务)?|"
    r"客服(?:人員|人员|專員|专员)?|專人|专人|專員|专员|工作人員|工作人员|服務人員|服务人员|"
    r"承辦人|承办人|真正的人|活人|主管|經理|经理)"
)
_PERSON_ZH = re.compile(
    r"^\s*(?:你好|您好|請問|请问|麻煩|麻烦|不好意思)?[\s,，!！]*"
    r"(?:我不要(?:機器人|机器人)[\s,，。]*)?"
    r"(?:我)?(?:要|想|想要|需要|可以|能|能不能|可不可以|可否|請|请|幫我|帮我)*"
    r"(?:找|跟|和|與|与|聯絡|联络|聯繫|联系|轉|转|轉接|转接|轉給|转给|叫)?(?:一下)?"
    + _CHINESE_PEOPLE
    + r"(?:說話|说话|講話|讲话|談|谈|談談|谈谈|聊|聊聊|通話|通话|對話|对话|出來|出来)?"
    r"(?:嗎|吗|吧|好嗎|好吗|可以嗎|可以吗)?[\s,，]*(?:謝謝|谢谢)?[\s?？!！。.~～]*$"
)
# "is anyone there?", "is a real person there?"
_ANYONE_ZH = re.compile(
    r"^\s*(?:請問|请问)?有(?:人|真人|人工客服|真人客服)(?:在)?(?:嗎|吗)[\s?？]*$"
)
# a transfer to a person asked in so many words, whatever follows it ("轉人工，謝謝",
# "我要轉人工客服，我等很久了") unless it is a question about transfers (轉人工需要多久？)
_TRANSFER_ZH = re.compile(
    r"^\s*(?:我)?(?:要|想|請|请|幫我|帮我|麻煩|麻烦)*(?:轉|转)(?:接)?(?:一下)?"
    r"(?:人工|真人|專人|专人|專員|专员|客服)?"
)
_ASKS = re.compile(r"[?？]|嗎|吗|多久|幾|几|怎麼|怎么|如何|什麼|什么|多少|哪")
# "is X needed?": 需要人工嗎, 需要工作人員嗎 ask whether a step needs one
_NEEDED = re.compile(r"需要.*(?:嗎|吗)|^\s*(?:人工|專人|专人)(?:處理|处理)?(?:嗎|吗)")
MAX_LENGTH = 80  # a request for a person is short; a longer message asks something


def asks_for_person(text: str) -> bool:
    """True when the message as a whole asks to reach a person (see the module docstring)."""
    message = text.strip()
    if not message or len(message) > MAX_LENGTH:
        return False
    if _PERSON_EN.match(message) or _ANYONE_ZH.match(message):
        return True
    if _NEEDED.search(message):
        return False
    return bool(_PERSON_ZH.match(message)) or _transfer_named(message)


def _transfer_named(message: str) -> bool:
    """True when the message opens by asking a transfer to a person (轉人工, 轉接專人, 麻煩轉接)
    and asks no question about it."""
    found = _TRANSFER_ZH.match(message)
    if found is None:
        return False
    opening = found.group(0)
    named = any(w in opening for w in ("人工", "真人", "專人", "专人", "專員", "专员", "客服"))
    return (named or "轉接" in opening or "转接" in opening) and not _ASKS.search(message)
