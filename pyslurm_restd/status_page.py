"""The status page at ``/`` (filtered by ``?user=&partition=&state=``), each job's page at
``/job/{id}``, and the login: a viewer pastes a token (`scontrol token`) into the form, which
keeps it in an HttpOnly, SameSite=Strict cookie; the pages are then gathered as that user.
Without one they are gathered as pyslurmrestd's own user. The cookie is honoured by the pages
only, never by the REST API; the one change the pages make, cancelling one's own job, takes a
logged-in viewer and a same-origin POST, and the controller authorizes it as it does scancel."""
from __future__ import annotations

import time
from dataclasses import dataclass
from urllib.parse import urlencode

from aiohttp import web

from pyslurm_common.rpc import ctld_pb2

from .request_auth import MAX_TOKEN, token_claims
from .status_data import JobFilter, gather
from .status_html import page
from .status_job_page import gather_job, job_page
from .upstream import CONTROLLER, Caller, Upstream, UpstreamError

COOKIE = "pyslurm_jwt"


@dataclass(frozen=True, slots=True)
class PageSettings:
    cluster: str
    own_user: str
    private_data: str
    privileged_users: frozenset[str]


def add_routes(app: web.Application, upstream: Upstream, settings: PageSettings) -> None:
    def viewer(request: web.Request) -> tuple[Caller, bool]:
        """The cookie's token user, or (anonymous) pyslurmrestd's own user."""
        token = request.cookies.get(COOKIE, "")
        user = token_claims(token)[0] if token else ""
        return (Caller(user_name=user, token=token), False) if user else (Caller(user_name=settings.own_user), True)

    async def status(request: web.Request) -> web.StreamResponse:
        caller, anonymous = viewer(request)
        view = await gather(upstream, caller, anonymous, settings.cluster, settings.private_data,
                            set(settings.privileged_users), JobFilter.from_query(request.query))
        return web.Response(text=page(view), content_type="text/html", headers={"Cache-Control": "no-store"})

    def job_id_of(request: web.Request) -> int:
        text = request.match_info["job_id"]
        if not text.isdigit() or len(text) > 10:
            raise web.HTTPNotFound()
        return int(text)

    async def job(request: web.Request) -> web.StreamResponse:
        caller, anonymous = viewer(request)
        view = await gather_job(upstream, caller, anonymous, job_id_of(request))
        view.notice = request.query.get("notice", "")[:200]
        return web.Response(text=job_page(view, settings.cluster, int(time.time())), content_type="text/html",
                            headers={"Cache-Control": "no-store"})

    async def cancel(request: web.Request) -> web.StreamResponse:
        job_id = job_id_of(request)
        caller, anonymous = viewer(request)
        origin = request.headers.get("Origin")
        if anonymous or (origin is not None and origin != f"{request.scheme}://{request.host}"):
            raise web.HTTPForbidden(text="Log in with your token to cancel your jobs.")
        try:
            reply = await upstream.call(caller, CONTROLLER + "SignalJobs", ctld_pb2.SignalRequest(job_ids=[job_id]),
                                        ctld_pb2.SignalReply)
            failed = next((r.error for r in reply.results if r.error), "")
        except UpstreamError as exc:
            failed = exc.strerror
        notice = f"Not cancelled: {failed}" if failed else f"Cancel requested for job {job_id}."
        raise web.HTTPSeeOther(f"/job/{job_id}?" + urlencode({"notice": notice}))

    async def login(request: web.Request) -> web.StreamResponse:
        form = await request.post()
        token = str(form.get("token", "")).strip().removeprefix("SLURM_JWT=")
        response = web.HTTPSeeOther("/")
        user, expires = token_claims(token) if 0 < len(token) <= MAX_TOKEN else ("", 0)
        if user:
            response.set_cookie(COOKIE, token, max_age=max(expires - int(time.time()), 0), httponly=True,
                                samesite="Strict", path="/")
        return response

    async def logout(request: web.Request) -> web.StreamResponse:
        response = web.HTTPSeeOther("/")
        response.del_cookie(COOKIE, path="/")
        return response

    app.router.add_get("/", status)
    app.router.add_get("/job/{job_id}", job)
    app.router.add_post("/job/{job_id}/cancel", cancel)
    app.router.add_post("/login", login)
    app.router.add_post("/logout", logout)
