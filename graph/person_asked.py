"""A message that asks for a person instead of an answer: "Can I talk to a real person?",
"transfer me to an agent", 我要找真人客服, 可以轉人工嗎？

Such a message has no answer in the documents; searching them for it would end in
"our documents don't answer this". The planner's rules end the turn without a
search (and without a model call) and the reply says who to contact; where staff
can take over, the core adds "Ask a person" to it as to any refusal.

Only a message that is the request as a whole (with a "please", a greeting or a
short "about my passport" after it): "How do I contact a person at the tax
office?" or "Is the counter staffed by a real person on Saturday?" ask the
documents something.
"""

from __future__ import annotations

import re

_PEOPLE = (
    r"(?:(?:a|an|some|your|one\s+of\s+your)\s+)?(?:real\s+|actual\s+|live\s+|human\s+)?"
    r"(?:person|people|human(?:\s+being)?|agent|someone|somebody|staff(?:\s+member)?|"
    r"operator|representative|rep|officer|colleague|customer\s+service(?:\s+agent)?)"
)
_I_WANT = r"i(?:\s+(?:want|need|would\s+like)|['’]d\s+like)"
_TAIL = r"(?:\s+(?:about|regarding|on|for)\s+[^?.!]{1,60})?(?:[\s,]+please)?[\s?.!]*"
_PERSON_EN = re.compile(
    r"^\s*(?:(?:hi|hello|hey)[\s,!.]+)?(?:please[\s,]+)?(?:"
    # "can I talk to a person", "I want to speak with a human", "I'd like to chat with an agent"
    r"(?:(?:can|could|may)\s+i\s+(?:please\s+)?|" + _I_WANT + r"\s+to\s+"
    r"|let\s+me\s+)?(?:talk|speak|chat)\s+(?:to|with)\s+" + _PEOPLE + r"|"
    # "connect me to an agent", "transfer me to a human", "put me through to someone"
    r"(?:(?:can|could)\s+you\s+(?:please\s+)?)?(?:connect|transfer|put)\s+me\s+(?:through\s+)?"
    r"(?:to|with)\s+" + _PEOPLE + r"|"
    # "I want a real person", "I need a human", "get me a human"
    r"(?:" + _I_WANT + r"|get\s+me)\s+" + _PEOPLE + r"|"
    # "real person", "human please", "agent"
    r"(?:a\s+)?(?:real|live|human)\s+(?:person|agent|being)|human|agent|operator"
    r")" + _TAIL + r"$",
    re.IGNORECASE,
)
_CHINESE_PEOPLE = (
    r"(?:真人(?:客服)?|人工(?:客服|服務|服务)?|客服(?:人員|人员|專員|专员)?|專人|专人|"
    r"工作人員|工作人员|承辦人|承办人|服務人員|服务人员|真正的人|活人)"
)
_PERSON_ZH = re.compile(
    r"^\s*(?:你好|您好|請問|请问|麻煩|麻烦|不好意思)?[\s,，!！]*"
    r"(?:我)?(?:要|想|想要|需要|可以|能|能不能|可不可以|可否|請|请|幫我|帮我|有沒有|有没有|有)?"
    r"(?:找|跟|和|與|与|聯絡|联络|联系|轉|转|轉接|转接|接|換|换|轉給|转给)?"
    + _CHINESE_PEOPLE
    + r"(?:說話|说话|談|谈|談談|谈谈|聊|聊聊|通話|通话|對話|对话|服務|服务|處理|处理)?"
    r"(?:嗎|吗|吧|好嗎|好吗|可以嗎|可以吗|謝謝|谢谢)?[\s?？!！。.~～]*$"
)
# a transfer asked in so many words: 轉人工, 转接客服 (whatever comes before)
_TRANSFER_ZH = re.compile(r"(?:轉|转)(?:接)?(?:人工|真人|專人|专人|客服)")
MAX_LENGTH = 80  # a request for a person is short; a longer message asks something


def asks_for_person(text: str) -> bool:
    """True when the message as a whole asks to reach a person (see the module docstring)."""
    message = text.strip()
    if not message or len(message) > MAX_LENGTH:
        return False
    if _PERSON_EN.match(message) or _PERSON_ZH.match(message):
        return True
    return bool(_TRANSFER_ZH.search(message)) and "?" not in message.rstrip("?？")
