"""The notifier (pyslurm_ctld/shell/notifier.py) against a real MailProg script that records what it
gets and a real local HTTP server: delivery, retries, and a dead target never holding others up."""
from __future__ import annotations

import asyncio
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pyslurm_ctld.shell.notifier import Notice, Notifier, default_mail_prog, recipient_ok

NOTICE = Notice(7, "END", "alice", "Slurm Job_id=7 Name=x Ended, Run time 00:00:05, COMPLETED, ExitCode 0",
                "Job ID: 7\nExit code: 0:0\n", "alice@lab.example", {"SLURM_JOB_ID": "7", "SLURM_JOB_MAIL_TYPE": "Ended"})


def _mail_prog(tmp_path: Path, exit_code: int = 0) -> tuple[Path, Path]:
    record = tmp_path / "mails"
    record.mkdir()
    script = tmp_path / "mail"
    script.write_text(f"""#!/bin/sh
n=$(ls {record} | wc -l)
{{ printf '%s\\n' "$@"; echo "JOB=$SLURM_JOB_ID TYPE=$SLURM_JOB_MAIL_TYPE"; echo ---; cat; }} > {record}/$n
exit {exit_code}
""")
    script.chmod(0o755)
    return script, record


class _Hook(http.server.BaseHTTPRequestHandler):
    received: list[dict[str, object]] = []
    status = 200

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = self.rfile.read(int(self.headers["Content-Length"]))
        type(self).received.append(json.loads(body))
        self.send_response(type(self).status)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def hook() -> Iterator[tuple[str, type[_Hook]]]:
    handler = type("Hook", (_Hook,), {"received": [], "status": 200})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/hook", handler
    server.shutdown()
    server.server_close()


async def _run(notifier: Notifier, notices: list[Notice], until: object, timeout: float = 10.0) -> None:
    stop = asyncio.Event()
    task = asyncio.create_task(notifier.run(stop))
    notifier.submit(notices)
    deadline = asyncio.get_running_loop().time() + timeout
    while not until() and asyncio.get_running_loop().time() < deadline:  # type: ignore[operator]
        await asyncio.sleep(0.02)
    stop.set()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


def test_mail_and_webhook_are_delivered(tmp_path: Path, hook: tuple[str, type[_Hook]]) -> None:
    script, record = _mail_prog(tmp_path)
    url, handler = hook
    notifier = Notifier(str(script), url, retry_delays=(0.05,))
    asyncio.run(_run(notifier, [NOTICE], lambda: list(record.iterdir()) and handler.received))
    assert (record / "0").read_text() == (
        f"-s\n{NOTICE.subject}\nalice@lab.example\nJOB=7 TYPE=Ended\n---\nJob ID: 7\nExit code: 0:0\n")
    assert handler.received == [{"kind": "END", "job_id": 7, "user": "alice", "subject": NOTICE.subject,
                                 "text": f"{NOTICE.subject}\n{NOTICE.body}", "fields": NOTICE.environment}]


def test_a_failing_mail_prog_is_retried_and_holds_nothing_up(tmp_path: Path, hook: tuple[str, type[_Hook]]) -> None:
    script, record = _mail_prog(tmp_path, exit_code=1)
    url, handler = hook
    notifier = Notifier(str(script), url, retry_delays=(0.05, 0.05))
    other = Notice(8, "BEGIN", "bob", "Slurm Job_id=8 Name=y Began, Queued time 00:00:01", "", "")
    asyncio.run(_run(notifier, [NOTICE, other], lambda: len(list(record.iterdir())) == 3 and len(handler.received) == 2))
    assert len(list(record.iterdir())) == 3   # one try and two retries, then given up
    assert sorted(r["job_id"] for r in handler.received) == [7, 8]   # the webhook did not wait for it


def test_a_dead_webhook_and_a_missing_mail_prog_only_log(tmp_path: Path, hook: tuple[str, type[_Hook]],
                                                          caplog: pytest.LogCaptureFixture) -> None:
    url, handler = hook
    handler.status = 500
    notifier = Notifier(str(tmp_path / "no-such-mail"), url, retry_delays=(0.01,))
    asyncio.run(_run(notifier, [NOTICE], lambda: "webhook notice not delivered" in caplog.text
                     and "mail notice not delivered" in caplog.text))
    assert len(handler.received) == 2
    assert "MailProg" in caplog.text and "No such file or directory" in caplog.text


def test_recipients_that_could_be_options_are_refused() -> None:
    assert recipient_ok("alice") and recipient_ok("alice@lab.example")
    assert not recipient_ok("-f/etc/passwd") and not recipient_ok("") and not recipient_ok("a\nb")


def test_stopping_kills_a_hanging_mail_prog(tmp_path: Path) -> None:
    script = tmp_path / "hang"
    script.write_text(f"#!/bin/sh\necho $$ > {tmp_path}/pid\nexec sleep 60\n")
    script.chmod(0o755)
    asyncio.run(_run(Notifier(str(script), ""), [NOTICE], lambda: (tmp_path / "pid").exists()))
    pid = int((tmp_path / "pid").read_text())
    assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]


def test_mail_prog_defaults_as_slurm(monkeypatch: pytest.MonkeyPatch) -> None:
    present: set[str] = set()
    monkeypatch.setattr("os.path.exists", lambda path: path in present)
    assert default_mail_prog() == "/bin/mail"
    present.add("/usr/bin/mail")
    assert default_mail_prog() == "/usr/bin/mail"
    present.add("/bin/mail")
    assert default_mail_prog() == "/bin/mail"
