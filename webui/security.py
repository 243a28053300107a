"""Protection against cross-site requests.

Pages: every form that changes something carries a per-session token (``csrf_token``)
that a page on another site cannot know. The JSON API: a state-changing request must
carry the header ``X-Requested-With`` (a browser only sends custom headers cross-site
after a CORS preflight, which this app never grants) and, if the browser names an
``Origin``, it must be this server.
"""

from __future__ import annotations

import hmac
import secrets
from urllib.parse import urlsplit

from flask import Flask, Response, abort, request, session

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
API_HEADER = "X-Requested-With"


def csrf_token() -> str:
    """The session's token, made on first use."""
    token = session.get("csrf_token")
    if not isinstance(token, str):
        token = secrets.token_urlsafe(32)
        session["csrf_token"] = token
    return token


def _same_origin() -> bool:
    origin = request.headers.get("Origin")
    if origin is None:  # older browsers and non-browser clients send none
        return True
    return urlsplit(origin).netloc == request.host


def check_request() -> None:
    """Refuse a state-changing request that may come from another site (403)."""
    if request.method in SAFE_METHODS or request.endpoint is None:
        return
    if not _same_origin():
        abort(403, description="This request came from another site.")
    if request.blueprint == "api":
        if not request.headers.get(API_HEADER):
            abort(403, description=f"API requests that change data need the {API_HEADER} header.")
        return
    sent = request.form.get("csrf_token", "") or request.headers.get("X-CSRF-Token", "")
    if not hmac.compare_digest(sent.encode(), csrf_token().encode()):
        abort(403, description="The form expired or came from another site; reload the page "
              "and try again.")


#: Sent with every response: no framing by other sites, no content sniffing, scripts and
#: styles only from this server (style attributes allowed: the colour chips use them).
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data: blob:; "
    "style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
}


def add_headers(response: Response) -> Response:
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def init_app(app: Flask) -> None:
    app.before_request(check_request)
    app.after_request(add_headers)
    app.jinja_env.globals["csrf_token"] = csrf_token
