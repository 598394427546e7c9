"""What a process loads at start so that its first user does not wait for it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textkit.bilingual import available
from textkit.scripts import to_script
from textkit.tokens import keyword_tokens

if TYPE_CHECKING:
    from bot.app.runtime import Runtime


def warm_up(runtime: Runtime, *, answers: bool = True) -> None:
    """Load jieba's dictionary, the embedder, OpenCC and the model client now (blocking:
    run in a thread).

    jieba's first cut takes over a second; paid at start, not by the first user (so are the
    guard's attack banks, the English-Chinese dictionary, and the model client's imports:
    0.6 s at start, 0.35 s more in the first answer, on the event loop every turn shares).

    `answers=False`: a process whose turns run elsewhere (a serving process with turn
    workers, `ragbot worker`) warms jieba and OpenCC, which it may call on its event loop
    (form names, the answer memory's keys, source views), but neither the graph and model
    client nor the embedder: its own searches (the API's, the answer memory's, a job's)
    load the model at the first one, in a thread. A cheaper start (docs/operating.md,
    "Sizing turns"), and no copy of the model in memory until then.
    """
    if answers:
        runtime.answer_service().warm()
    keyword_tokens("暖機 warm up 测试")
    if answers:
        from graph.attack_similarity import attack_bank

        runtime.embedder.model.embed_query("warm up")
        if runtime.embedder.is_local:  # the guard's similarity screen runs with it
            attack_bank().warm(runtime.embedder.model)
        # the English-Chinese dictionary a passage in another language is weighed with
        # (1.2 s to read): else the first such question of each process pays it
        available()
    to_script("测试", "zh-hant")
    to_script("測試", "zh-hans")
