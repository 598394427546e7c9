"""Fixed user-facing replies in the three languages (not prompts: no model sees them)."""

from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    "empty": {
        "en": "Please type a question and I'll look it up in our documents.",
        "zh-hant": "請輸入您的問題，我會在文件中為您查找。",
        "zh-hans": "请输入您的问题，我会在文件中为您查找。",
    },
    "too_long": {
        "en": "That message is too long for me ({limit} characters at most). "
        "Could you ask the main question in a shorter message?",
        "zh-hant": "訊息太長了（最多 {limit} 個字）。請用較短的訊息提出主要問題。",
        "zh-hans": "消息太长了（最多 {limit} 个字）。请用较短的消息提出主要问题。",
    },
    "injection": {
        "en": "I can only answer questions about our documents and services.",
        "zh-hant": "我只能回答與本機關文件及服務相關的問題。",
        "zh-hans": "我只能回答与本机构文件及服务相关的问题。",
    },
    "abuse": {
        "en": "I'm here to help with questions about our services. "
        "Please keep the conversation respectful.",
        "zh-hant": "我很樂意協助您了解我們的服務，請保持友善的對話。",
        "zh-hans": "我很乐意协助您了解我们的服务，请保持友善的对话。",
    },
    "greeting": {
        "en": "Hello! Ask me anything about our services and documents.",
        "zh-hant": "您好！歡迎詢問任何關於本機關服務與文件的問題。",
        "zh-hans": "您好！欢迎询问任何关于本机构服务与文件的问题。",
    },
    "thanks": {
        "en": "You're welcome! Ask me anytime.",
        "zh-hant": "不客氣！有任何問題歡迎隨時詢問。",
        "zh-hans": "不客气！有任何问题欢迎随时询问。",
    },
    "refusal": {
        "en": "Sorry, our documents don't answer this, so I won't guess. "
        "Please contact {contact} and a colleague will help you.",
        "zh-hant": "抱歉，文件中沒有這個問題的答案，因此我無法回答。"
        "請聯絡{contact}，將由專人為您服務。",
        "zh-hans": "抱歉，文件中没有这个问题的答案，因此我无法回答。"
        "请联系{contact}，将由专人为您服务。",
    },
    "answer_intro": {
        "en": "Here is what our documents say:",
        "zh-hant": "根據文件內容：",
        "zh-hans": "根据文件内容：",
    },
    "forms_intro": {
        "en": "Here are the forms you may need:",
        "zh-hant": "以下是您可能需要的表單：",
        "zh-hans": "以下是您可能需要的表单：",
    },
    "out_of_scope": {
        "en": "Sorry, I can only help with questions about our services and documents.",
        "zh-hant": "抱歉，我只能協助回答與本機關服務及文件相關的問題。",
        "zh-hans": "抱歉，我只能协助回答与本机构服务及文件相关的问题。",
    },
    # progress shown while a turn runs, keyed by the node that just finished
    "progress:received": {
        "en": "Looking through our documents…",
        "zh-hant": "正在查閱文件…",
        "zh-hans": "正在查阅文件…",
    },
    "progress:planner": {"en": "Thinking…", "zh-hant": "思考中…", "zh-hans": "思考中…"},
    "progress:query_builder": {"en": "Searching…", "zh-hant": "搜尋中…", "zh-hans": "搜索中…"},
    "progress:tool_executor": {
        "en": "Checking sources…",
        "zh-hant": "檢查資料來源…",
        "zh-hans": "检查资料来源…",
    },
    "progress:retrieval_checker": {
        "en": "Writing the answer…",
        "zh-hant": "撰寫回答中…",
        "zh-hans": "撰写回答中…",
    },
    "sources": {"en": "Sources:", "zh-hant": "資料來源：", "zh-hans": "资料来源："},
}


def progress_message(step: str, language: str) -> str | None:
    """What to show after node `step` finished, or None for steps users need not see."""
    texts = MESSAGES.get(f"progress:{step}")
    return texts.get(language, texts["en"]) if texts else None


DEFAULT_CONTACT = {"en": "our service desk", "zh-hant": "服務台", "zh-hans": "服务台"}


def refusal(language: str, contacts: dict[str, str]) -> str:
    """The "not in our documents" reply, sending the user to the contact for `language`.

    `contacts` holds HANDOFF_CONTACT per language ("" key: every language).
    """
    contact = (
        contacts.get(language)
        or contacts.get("")
        or DEFAULT_CONTACT.get(language, DEFAULT_CONTACT["en"])
    )
    return message("refusal", language, contact=contact)


def message(key: str, language: str, **values: object) -> str:
    """The reply `key` in `language` (English when the language is unknown)."""
    texts = MESSAGES[key]
    return texts.get(language, texts["en"]).format(**values)
