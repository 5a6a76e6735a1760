"""Sending notices: mail through MailProg and a JSON POST to a webhook, from a bounded queue
with retries, so a dead mailer or target never delays or fails a job or the scheduler.

MailProg (slurm.conf; default /bin/mail, or /usr/bin/mail where only that exists, as Slurm) runs as `MailProg -s <subject> <user>`
with the notice's environment (SLURM_JOB_ID, SLURM_JOB_MAIL_TYPE, ...) and, unlike Slurm's, the
body on its standard input; it counts as sent when it exits 0 within MAIL_TIMEOUT. With
`NotifyWebhookURL=<url>` every notice is also POSTed there as one JSON object (`kind`, `job_id`,
`user`, `subject`, `text`, `fields`), which Slack's and Matrix's incoming hooks show as a message
(`text`); a 2xx answer within WEBHOOK_TIMEOUT counts as delivered.

`submit` never blocks: a notice beyond QUEUE_LIMIT waiting is dropped with an error in the log.
Each target of a notice is tried up to len(RETRY_DELAYS)+1 times, the delays between; at most
IN_FLIGHT deliveries run at once. Notices live in memory: a restart of the controller loses
the ones not yet sent (as Slurm's mail queue).
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Awaitable, Callable

from pyslurm_common.config import SlurmConfig

log = logging.getLogger(__name__)

def default_mail_prog() -> str:
    """slurm.conf(5): "/bin/mail" (or "/usr/bin/mail" if "/bin/mail" does not exist but
    "/usr/bin/mail" does exist)."""
    return "/usr/bin/mail" if not os.path.exists("/bin/mail") and os.path.exists("/usr/bin/mail") else "/bin/mail"


QUEUE_LIMIT = 1000
IN_FLIGHT = 8
RETRY_DELAYS: tuple[float, ...] = (5.0, 30.0, 120.0)
MAIL_TIMEOUT = 60.0
WEBHOOK_TIMEOUT = 10.0
MAX_RECIPIENT = 1024


class DeliveryError(Exception):
    pass


@dataclass(frozen=True, slots=True)
class Notice:
    job_id: int
    kind: str                  # BEGIN, END, FAIL, ..., IDLE_GPU_WARNING, IDLE_GPU_CANCELLED/REQUEUED
    user: str                  # the job's owner
    subject: str
    body: str
    recipient: str = ""        # the mail's; "" sends no mail (webhook only)
    environment: dict[str, str] = field(default_factory=dict)

    def payload(self) -> dict[str, object]:
        return {"kind": self.kind, "job_id": self.job_id, "user": self.user, "subject": self.subject,
                "text": f"{self.subject}\n{self.body}", "fields": self.environment}


def recipient_ok(recipient: str) -> bool:
    """A recipient MailProg can take as its last argument (never as an option)."""
    return (0 < len(recipient) <= MAX_RECIPIENT and not recipient.startswith("-")
            and all(char.isprintable() for char in recipient))


async def send_mail(mail_prog: str, notice: Notice) -> None:
    """Run MailProg for one notice; killed (its whole session) after MAIL_TIMEOUT, or when the
    controller stops meanwhile."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **notice.environment}
    try:
        proc = await asyncio.create_subprocess_exec(
            mail_prog, "-s", notice.subject, notice.recipient, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, env=env, start_new_session=True)
    except OSError as exc:
        raise DeliveryError(f"MailProg {mail_prog}: {exc.strerror or exc}") from exc
    try:
        output, _ = await asyncio.wait_for(proc.communicate(notice.body.encode()), MAIL_TIMEOUT)
    except (TimeoutError, asyncio.CancelledError) as exc:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
        if isinstance(exc, asyncio.CancelledError):
            raise
        raise DeliveryError(f"MailProg {mail_prog} did not finish in {MAIL_TIMEOUT:.0f} s") from None
    if proc.returncode:
        raise DeliveryError(f"MailProg returned error {proc.returncode}, its output was "
                            f"'{output.decode(errors='replace').strip()[:200]}'")


def _post(url: str, payload: dict[str, object]) -> None:
    request = urllib.request.Request(url, data=json.dumps(payload).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=WEBHOOK_TIMEOUT) as reply:  # noqa: S310 (admin's URL)
            if not 200 <= reply.status < 300:
                raise DeliveryError(f"webhook answered {reply.status}")
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise DeliveryError(f"webhook {url}: {exc}") from exc


async def send_webhook(url: str, notice: Notice) -> None:
    await asyncio.to_thread(_post, url, notice.payload())


class Notifier:
    def __init__(self, mail_prog: str = "", webhook: str = "",
                 retry_delays: tuple[float, ...] = RETRY_DELAYS) -> None:
        self.mail_prog = mail_prog or default_mail_prog()
        self.webhook = webhook
        self.retry_delays = retry_delays
        self._queue: asyncio.Queue[Notice] | None = None
        self._slots = asyncio.Semaphore(IN_FLIGHT)
        self._tasks: set[asyncio.Task[None]] = set()

    def configure(self, cfg: SlurmConfig) -> None:
        """MailProg and NotifyWebhookURL from slurm.conf (again on reconfigure)."""
        self.mail_prog = cfg.value("MailProg") or default_mail_prog()
        self.webhook = cfg.value("NotifyWebhookURL") or ""

    def submit(self, notices: list[Notice]) -> None:
        if self._queue is None:
            self._queue = asyncio.Queue(QUEUE_LIMIT)
        for notice in notices:
            log.debug("job=%d notice %s: %s", notice.job_id, notice.kind, notice.subject)
            try:
                self._queue.put_nowait(notice)
            except asyncio.QueueFull:
                log.error("job=%d notice dropped, %d waiting already: %s", notice.job_id, QUEUE_LIMIT, notice.subject)

    async def run(self, stop: asyncio.Event) -> None:
        """Deliver until cancelled (the controller stops); deliveries under way are cancelled too."""
        try:
            await self._serve(stop)
        finally:
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _serve(self, stop: asyncio.Event) -> None:
        if self._queue is None:
            self._queue = asyncio.Queue(QUEUE_LIMIT)
        while not stop.is_set():
            notice = await self._queue.get()
            if notice.recipient and recipient_ok(notice.recipient):
                await self._start(notice, "mail", lambda n=notice: send_mail(self.mail_prog, n))
            elif notice.recipient:
                log.error("job=%d mail not sent: bad recipient %r", notice.job_id, notice.recipient[:80])
            if self.webhook:
                await self._start(notice, "webhook", lambda n=notice: send_webhook(self.webhook, n))

    async def _start(self, notice: Notice, target: str, send: Callable[[], Awaitable[None]]) -> None:
        while len(self._tasks) >= QUEUE_LIMIT:   # bounded: deliveries still retrying hold the queue
            await asyncio.sleep(0.1)
        task = asyncio.get_running_loop().create_task(self._deliver(notice, target, send))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _deliver(self, notice: Notice, target: str, send: Callable[[], Awaitable[None]]) -> None:
        for attempt, delay in enumerate((0.0, *self.retry_delays), start=1):
            await asyncio.sleep(delay)
            async with self._slots:
                try:
                    await send()
                    return
                except DeliveryError as exc:
                    log.warning("job=%d %s notice, attempt %d: %s", notice.job_id, target, attempt, exc)
        log.error("job=%d %s notice not delivered: %s", notice.job_id, target, notice.subject)
