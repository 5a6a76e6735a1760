"""The status page at / in a real headless browser (Debian's chromium): it renders, shows a job
move from waiting (with its reason in plain words) to running to finished, and a screenshot is
kept as a test artefact ($PYSLURM_TEST_ARTIFACTS, default /tmp/pyslurm-test-artifacts)."""
from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Iterator

import pytest

from tests.integration.conftest import Cluster, wait_for
from tests.integration.restd_support import RestClient, debian_tool, serving

CHROMIUM = debian_tool("chromium", "chromium")
ARTIFACTS = Path(os.environ.get("PYSLURM_TEST_ARTIFACTS", "/tmp/pyslurm-test-artifacts"))


@pytest.fixture(scope="module")
def page_url(cluster: Cluster) -> Iterator[str]:
    with serving(cluster) as port:
        yield f"http://127.0.0.1:{port}/"


def _browser(*args: str) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory(prefix="pyslurm-chromium-") as profile:
        return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                               "--disable-dev-shm-usage", f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=120)


def sections(url: str) -> dict[str, str]:
    """The rendered page's sections (by heading id), as the browser built the DOM."""
    dom = _browser("--dump-dom", url)
    assert dom.returncode == 0, dom.stderr
    parts = re.split(r'<h2 id="(\w+)">', dom.stdout)
    return dict(zip(parts[1::2], parts[2::2]))


def _has_job(section: str, job_id: int) -> bool:
    return f'<tr><td class="n"><a href="/job/{job_id}">' in section     # the row's first cell: its job's link


def test_page_follows_a_job_from_waiting_to_finished(cluster: Cluster, page_url: str) -> None:
    job_id = cluster.sbatch("--hold", "-J", "pagejob", "--wrap", "sleep 8", user="alice")
    waiting = sections(page_url)
    assert set(waiting) >= {"nodes", "partitions", "pending", "running", "finished", "usage"}
    assert "node1" in waiting["nodes"] and "debug" in waiting["partitions"]
    assert _has_job(waiting["pending"], job_id) and "pagejob" in waiting["pending"]
    assert "It is held by its user" in waiting["pending"]      # scontrol explain's words
    cluster.run("scontrol", "release", str(job_id), user="alice", check=True)
    cluster.wait_state(job_id, "RUNNING")
    waits = cluster.sbatch("--hold", "-J", "waiting", "--wrap", "true", user="bob")
    running = sections(page_url)
    assert _has_job(running["running"], job_id) and not _has_job(running["pending"], job_id)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "status-page.png"          # one job running, one waiting
    taken = _browser(f"--screenshot={shot}", "--window-size=1280,1400", "--hide-scrollbars", page_url)
    assert taken.returncode == 0, taken.stderr
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
    cluster.run("scancel", str(waits), user="bob", check=True)
    wait_for(lambda: _has_job(sections(page_url)["finished"], job_id), 60, 1)
    finished = sections(page_url)["finished"]
    row = finished[finished.index(f'href="/job/{job_id}"'):].split("</tr>")[0]
    assert "COMPLETED" in row and "0:0" in row


def test_page_refreshes_itself_and_loads_nothing_from_elsewhere(page_url: str) -> None:
    html = RestClient(port=int(page_url.rsplit(":", 1)[1].strip("/"))).get("/")
    assert (html.status, html.content_type) == (200, "text/html")
    assert '<meta http-equiv="refresh" content="10">' in html.text
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html.text)   # no CDN, no external resource
    assert "<script" not in html.text


def test_a_token_shows_the_page_as_its_user(cluster: Cluster, page_url: str) -> None:
    """The login form keeps the token in an HttpOnly cookie; the page is then alice's view."""
    import http.client
    import urllib.parse

    port = int(page_url.rsplit(":", 1)[1].strip("/"))
    jwt = cluster.run("scontrol", "token", user="alice", check=True).stdout.strip()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("POST", "/login", body=urllib.parse.urlencode({"token": jwt}),
                 headers={"Content-Type": "application/x-www-form-urlencoded"})
    answer = conn.getresponse()
    answer.read()
    cookie = answer.getheader("Set-Cookie") or ""
    assert answer.status == 303 and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    conn.request("GET", "/", headers={"Cookie": cookie.split(";")[0]})
    page = conn.getresponse().read().decode()
    assert "viewing as alice" in page and "Log out" in page and "anonymous" not in page
    conn.request("GET", "/slurm/v0.0.44/jobs/", headers={"Cookie": cookie.split(";")[0]})
    rest = conn.getresponse()
    assert (rest.status, rest.read().decode()) == (500, "Authentication does not apply to request")  # page only
    conn.close()


def _login(port: int, cluster: Cluster, user: str) -> str:
    import http.client
    import urllib.parse

    jwt = cluster.run("scontrol", "token", user=user, check=True).stdout.strip()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("POST", "/login", body=urllib.parse.urlencode({"token": jwt}),
                 headers={"Content-Type": "application/x-www-form-urlencoded"})
    answer = conn.getresponse()
    answer.read()
    conn.close()
    return (answer.getheader("Set-Cookie") or "").split(";")[0]


def _post(port: int, path: str, cookie: str, origin: str | None = None) -> tuple[int, str]:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Cookie": cookie} if cookie else {}
    if origin is not None:
        headers["Origin"] = origin
    conn.request("POST", path, headers=headers)
    answer = conn.getresponse()
    answer.read()
    conn.close()
    return answer.status, answer.getheader("Location") or ""


def test_job_page_filters_and_cancel_by_the_owner(cluster: Cluster, page_url: str) -> None:
    """An array task is 397_0 with a link to its page; the page (in Chromium) tells the job and why it
    waits; filters narrow the lists; only the logged-in owner may cancel, and only from this origin."""
    port = int(page_url.rsplit(":", 1)[1].strip("/"))
    array = cluster.sbatch("-J", "pagearray", "--array=0-3%1", "--wrap", "sleep 30", user="alice")
    bobs = cluster.sbatch("--hold", "-J", "bobsjob", "--wrap", "true", user="bob")
    wait_for(lambda: f">{array}_0<" in sections(page_url)["running"], 60, 1)
    assert f">{array}_[1-3]<" in sections(page_url)["pending"]
    page = _browser("--dump-dom", f"{page_url}job/{bobs}")
    assert page.returncode == 0 and "bobsjob" in page.stdout and "It is held by its user" in page.stdout
    assert "/cancel" not in page.stdout                         # anonymous: no cancel button
    only_bob = sections(f"{page_url}?user=bob&state=pending")
    assert _has_job(only_bob["pending"], bobs) and not _has_job(only_bob["pending"], array)
    assert "No job is running." in only_bob["running"]

    alice, bob = _login(port, cluster, "alice"), _login(port, cluster, "bob")
    assert _post(port, f"/job/{bobs}/cancel", "")[0] == 403                         # not logged in
    assert _post(port, f"/job/{bobs}/cancel", bob, origin="http://elsewhere.example")[0] == 403
    status, location = _post(port, f"/job/{bobs}/cancel", alice)                   # not alice's job
    assert status == 303 and "Not+cancelled" in location and cluster.job_field(bobs, "T") == "PENDING"
    status, location = _post(port, f"/job/{bobs}/cancel", bob, origin=f"http://127.0.0.1:{port}")
    assert status == 303 and location.startswith(f"/job/{bobs}?notice=Cancel+requested")
    wait_for(lambda: cluster.job_field(bobs, "T") in ("CANCELLED", ""), 20)

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    narrow = ARTIFACTS / "status-page-700px.png"             # tables scroll in their boxes at 700 px
    taken = _browser(f"--screenshot={narrow}", "--window-size=700,1200", "--hide-scrollbars", page_url)
    assert taken.returncode == 0 and narrow.stat().st_size > 10_000
    cluster.run("scancel", str(array), user="alice", check=True)
