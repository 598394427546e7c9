"""What the Telegram bot says on its own (welcome, /lang, /new, buttons, the command menu).

Answers and command output come from the core; these are the adapter's few
fixed texts, in the three languages.
"""

from __future__ import annotations

LANGUAGES = {"en": "English", "zh-hant": "繁體中文", "zh-hans": "简体中文"}

TEXTS: dict[str, dict[str, str]] = {
    "welcome": {
        "en": "Hello! I answer questions from our official documents, in English, 繁體中文 "
        "or 简体中文, and I can send you forms.\n\nJust type your question, for example "
        "<i>How do I apply for a library card?</i>\n/forms lists the forms, /lang changes "
        "my language, /new starts a new conversation.",
        "zh-hant": "您好！我會根據本機關的正式文件回答問題（English、繁體中文、简体中文），"
        "也能提供表單下載。\n\n直接輸入問題即可，例如：<i>如何申請借書證？</i>\n"
        "/forms 列出表單，/lang 切換語言，/new 開始新的對話。",
        "zh-hans": "您好！我会根据本机构的正式文件回答问题（English、繁體中文、简体中文），"
        "也能提供表单下载。\n\n直接输入问题即可，例如：<i>如何申请借书证？</i>\n"
        "/forms 列出表单，/lang 切换语言，/new 开始新的对话。",
    },
    "choose_language": {
        "en": "Choose the language of my answers:",
        "zh-hant": "請選擇回答的語言：",
        "zh-hans": "请选择回答的语言：",
    },
    "language_set": {
        "en": "I'll answer in English from now on.",
        "zh-hant": "之後我會以繁體中文回答。",
        "zh-hans": "之后我会以简体中文回答。",
    },
    "new_conversation": {
        "en": "Started a new conversation: earlier messages no longer count.",
        "zh-hant": "已開始新的對話，先前的訊息不再列入參考。",
        "zh-hans": "已开始新的对话，之前的消息不再作为参考。",
    },
    "new_in_group": {
        "en": "Mention me with a new question to start a new conversation.",
        "zh-hant": "請提及我並提出新問題，即可開始新的對話。",
        "zh-hans": "请提及我并提出新问题，即可开始新的对话。",
    },
    "thanks": {
        "en": "Thank you for your feedback!",
        "zh-hant": "感謝您的回饋！",
        "zh-hans": "感谢您的反馈！",
    },
    "vote_gone": {
        "en": "That answer is no longer available.",
        "zh-hant": "該回答已無法評分。",
        "zh-hans": "该回答已无法评分。",
    },
    "helpful": {"en": "👍 Helpful", "zh-hant": "👍 有幫助", "zh-hans": "👍 有帮助"},
    "not_helpful": {"en": "👎 Not helpful", "zh-hant": "👎 沒幫助", "zh-hans": "👎 没帮助"},
    "sources": {"en": "Sources", "zh-hant": "資料來源", "zh-hans": "资料来源"},
    "page": {"en": "p. {page}", "zh-hant": "第 {page} 頁", "zh-hans": "第 {page} 页"},
    "form_missing": {
        "en": "That form is no longer available.",
        "zh-hant": "該表單已無法提供。",
        "zh-hans": "该表单已无法提供。",
    },
}

# The command menu (setMyCommands): English for everyone, Chinese for `zh` clients.
PUBLIC_COMMANDS: dict[str, list[tuple[str, str]]] = {
    "en": [
        ("start", "What I can do"),
        ("help", "How to ask"),
        ("lang", "Choose English, 繁體中文 or 简体中文"),
        ("forms", "Forms you can download"),
        ("new", "Start a new conversation"),
    ],
    "zh": [
        ("start", "我能做什麼 / 我能做什么"),
        ("help", "使用說明 / 使用说明"),
        ("lang", "選擇語言 / 选择语言"),
        ("forms", "可下載的表單 / 可下载的表单"),
        ("new", "開始新的對話 / 开始新的对话"),
    ],
}
ADMIN_COMMANDS: dict[str, list[tuple[str, str]]] = {
    "en": [
        ("upload", "Add a document (caption of a file)"),
        ("docs", "Documents in the knowledge base"),
        ("deldoc", "Delete a document: /deldoc <title>"),
        ("addform", "Add a form: /addform <name> <url>"),
        ("delform", "Delete a form: /delform <name>"),
        ("jobs", "State of recent uploads"),
        ("stats", "Usage and knowledge-base counts"),
        ("memory", "Remembered answers: /memory, /memory forget <id|all>"),
    ],
    "zh": [
        ("upload", "新增文件（作為檔案說明）"),
        ("docs", "知識庫文件"),
        ("deldoc", "刪除文件：/deldoc <標題>"),
        ("addform", "新增表單：/addform <名稱> <網址>"),
        ("delform", "刪除表單：/delform <名稱>"),
        ("jobs", "最近上傳的處理狀態"),
        ("stats", "使用量與知識庫統計"),
        ("memory", "記住的回答：/memory、/memory forget <編號|all>"),
    ],
}


def text(key: str, language: str, **values: object) -> str:
    """The text `key` in `language` (English when unknown)."""
    texts = TEXTS[key]
    return texts.get(language, texts["en"]).format(**values)
