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
}


def message(key: str, language: str, **values: object) -> str:
    """The reply `key` in `language` (English when the language is unknown)."""
    texts = MESSAGES[key]
    return texts.get(language, texts["en"]).format(**values)
