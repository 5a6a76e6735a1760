"""The status page at ``/`` and its login: a viewer pastes a token (`scontrol token`) into the
form, which keeps it in an HttpOnly, SameSite=Strict cookie; the page is then gathered as that
user. Without one it is gathered as pyslurmrestd's own user. The cookie is honoured by the page
only, never by the REST API (whose requests change things and carry their token in headers)."""
from __future__ import annotations

import time
from dataclasses import dataclass

from aiohttp import web

from .request_auth import MAX_TOKEN, token_claims
from .status_data import gather
from .status_html import page
from .upstream import Caller, Upstream

COOKIE = "pyslurm_jwt"


@dataclass(frozen=True, slots=True)
class PageSettings:
    cluster: str
    own_user: str
    private_data: str
    privileged_users: frozenset[str]


def add_routes(app: web.Application, upstream: Upstream, settings: PageSettings) -> None:
    async def status(request: web.Request) -> web.StreamResponse:
        token = request.cookies.get(COOKIE, "")
        user = token_claims(token)[0] if token else ""
        caller = Caller(user_name=user, token=token) if user else Caller(user_name=settings.own_user)
        view = await gather(upstream, caller, not user, settings.cluster, settings.private_data,
                            set(settings.privileged_users))
        return web.Response(text=page(view), content_type="text/html", headers={"Cache-Control": "no-store"})

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
    app.router.add_post("/login", login)
    app.router.add_post("/logout", logout)
