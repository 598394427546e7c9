"""Fixed replies of the serving core in the three languages (no model sees them)."""

from __future__ import annotations

REPLIES: dict[str, dict[str, str]] = {
    "rate_limited": {
        "en": "You're sending messages faster than I can answer ({limit} a minute). "
        "Please wait a moment and try again.",
        "zh-hant": "您傳送訊息的速度太快了（每分鐘最多 {limit} 則），請稍候再試。",
        "zh-hans": "您发送消息的速度太快了（每分钟最多 {limit} 条），请稍候再试。",
    },
    "not_admin": {
        "en": "Sorry, only administrators can do that. You can still ask me any question.",
        "zh-hant": "抱歉，只有管理員可以執行這項操作。您仍然可以向我提出任何問題。",
        "zh-hans": "抱歉，只有管理员可以执行这项操作。您仍然可以向我提出任何问题。",
    },
    "unknown_command": {
        "en": "I don't know the command {command!r}. {help}",
        "zh-hant": "我不認得指令 {command!r}。{help}",
        "zh-hans": "我不认识指令 {command!r}。{help}",
    },
    "help": {
        "en": "Ask me a question about our services and documents, or ask for a form.",
        "zh-hant": "歡迎詢問關於本機關服務與文件的問題，或索取表單。",
        "zh-hans": "欢迎询问关于本机构服务与文件的问题，或索取表单。",
    },
    "help_admin": {
        "en": "Admin commands: docs, delete <title>, forms, addform <name> <url>, "
        "delform <name>, stats, jobs, memory [forget <id|all>]; send a file to add it to the"
        " knowledge base.",
        "zh-hant": "管理指令：docs、delete <標題>、forms、addform <名稱> <網址>、"
        "delform <名稱>、stats、jobs、memory [forget <編號|all>]；傳送檔案即可加入知識庫。",
        "zh-hans": "管理指令：docs、delete <标题>、forms、addform <名称> <网址>、"
        "delform <名称>、stats、jobs、memory [forget <编号|all>]；发送文件即可加入知识库。",
    },
    "error": {
        "en": "Sorry, something went wrong while answering. Please try again in a moment.",
        "zh-hant": "抱歉，回答時發生錯誤，請稍後再試。",
        "zh-hans": "抱歉，回答时发生错误，请稍后再试。",
    },
    "busy": {
        "en": "Sorry, I'm restarting and could not answer. Please send your message again.",
        "zh-hant": "抱歉，系統正在重新啟動，未能回答。請重新傳送您的訊息。",
        "zh-hans": "抱歉，系统正在重新启动，未能回答。请重新发送您的消息。",
    },
    "upload_received": {
        "en": "Received {name} ({size}). I'll tell you when it has been added.",
        "zh-hant": "已收到 {name}（{size}），處理完成後會通知您。",
        "zh-hans": "已收到 {name}（{size}），处理完成后会通知您。",
    },
    "send_file": {
        "en": "Send me the file now (within 10 minutes).",
        "zh-hant": "請在 10 分鐘內傳送檔案。",
        "zh-hans": "请在 10 分钟内发送文件。",
    },
    "upload_refused": {
        "en": "I can't take {name}: {reason}.",
        "zh-hant": "無法接收 {name}：{reason}。",
        "zh-hans": "无法接收 {name}：{reason}。",
    },
    "upload_added": {
        "en": "{name} was added as {title!r} ({chunks} passages).",
        "zh-hant": "{name} 已加入為「{title}」（{chunks} 個段落）。",
        "zh-hans": "{name} 已加入为「{title}」（{chunks} 个段落）。",
    },
    "upload_replaced": {
        "en": "{name} replaced the document {title!r} ({chunks} passages).",
        "zh-hant": "{name} 已取代文件「{title}」（{chunks} 個段落）。",
        "zh-hans": "{name} 已替换文件「{title}」（{chunks} 个段落）。",
    },
    "upload_unchanged": {
        "en": "{name} is already in the knowledge base ({reason}); nothing changed.",
        "zh-hant": "{name} 已在知識庫中（{reason}），未作變更。",
        "zh-hans": "{name} 已在知识库中（{reason}），未作变更。",
    },
    "upload_failed": {
        "en": "{name} could not be added: {reason}.",
        "zh-hant": "{name} 無法加入：{reason}。",
        "zh-hans": "{name} 无法加入：{reason}。",
    },
    "done": {"en": "Done: {what}.", "zh-hant": "完成：{what}。", "zh-hans": "完成：{what}。"},
    "not_found": {
        "en": "There is no {kind} named {name!r}.",
        "zh-hant": "找不到名為「{name}」的{kind}。",
        "zh-hans": "找不到名为「{name}」的{kind}。",
    },
    "usage": {"en": "Usage: {usage}", "zh-hant": "用法：{usage}", "zh-hans": "用法：{usage}"},
    "empty_list": {
        "en": "There are no {kind} yet.",
        "zh-hant": "目前沒有{kind}。",
        "zh-hans": "目前没有{kind}。",
    },
}


def reply(key: str, language: str, **values: object) -> str:
    """The reply `key` in `language` (English when the language is unknown)."""
    texts = REPLIES[key]
    return texts.get(language, texts["en"]).format(**values)


def human_size(size: int) -> str:
    """A byte count as people read it (kB / MB)."""
    if size < 1024 * 1024:
        return f"{max(1, round(size / 1024))} kB"
    return f"{size / 1024 / 1024:.1f} MB"
