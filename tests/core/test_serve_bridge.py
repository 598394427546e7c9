"""`ragbot serve`'s two loops: uvicorn on its own thread and loop, every handler on the core's."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator

import httpx
import uvicorn
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from bot.app.bridge import serving_app
from storage.db import Database
from tests.support.processes import free_port


async def test_every_request_is_handled_on_the_core_loop_while_http_runs_on_its_own(
    db: Database,
) -> None:
    core = asyncio.get_running_loop()
    seen: list[tuple[str, asyncio.AbstractEventLoop]] = []
    left = asyncio.Event()

    async def probe(request: Request) -> Response:
        seen.append(("probe", asyncio.get_running_loop()))
        return PlainTextResponse(str(len(await request.body())))

    async def stream(request: Request) -> Response:
        async def body() -> AsyncIterator[str]:
            for n in range(3):
                seen.append(("stream", asyncio.get_running_loop()))
                yield f"{n}\n"

        return StreamingResponse(body())

    async def endless(request: Request) -> Response:
        async def body() -> AsyncIterator[str]:
            try:
                while True:
                    yield "."
                    await asyncio.sleep(0.05)
            finally:  # the client left: stopped where it runs, on the core's loop
                seen.append(("left", asyncio.get_running_loop()))
                left.set()

        return StreamingResponse(body())

    routes = [
        Route("/probe", probe, methods=["POST"]),
        Route("/stream", stream),
        Route("/endless", endless),
    ]
    app = serving_app(db, routes, lambda: False, core)
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, lifespan="off", log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        while not server.started:
            await asyncio.sleep(0.02)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
            assert (await client.post("/probe", content=b"x" * 5000)).text == "5000"
            assert (await client.get("/stream")).text == "0\n1\n2\n"
            # the database's pool belongs to the core's loop: used from the HTTP loop, it fails
            health = await client.get("/healthz")
            assert health.status_code == 200, health.text
            async with client.stream("GET", "/endless") as response:
                async for _ in response.aiter_bytes():
                    break
        await asyncio.wait_for(left.wait(), 5)
    finally:
        server.should_exit = True
        await asyncio.to_thread(thread.join, 10)
    assert [name for name, _ in seen] == ["probe", "stream", "stream", "stream", "left"]
    assert all(loop is core for _, loop in seen)
