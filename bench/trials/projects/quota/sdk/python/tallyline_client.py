"""Official Python client for the Tallyline public API."""

import time

import requests

__version__ = "2.3.0"

DEFAULT_BASE_URL = "https://api.tallyline.io"
RETRY_STATUSES = {429, 500, 502, 503, 504}


class TallylineError(Exception):
    def __init__(self, status, code, message):
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code


class Client:
    def __init__(
        self,
        api_key,
        base_url=DEFAULT_BASE_URL,
        timeout=10,
        max_retries=5,
        backoff_factor=0.0,
    ):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff_factor = backoff_factor
        self._session = requests.Session()
        self._session.headers["Authorization"] = f"Bearer {api_key}"
        self._session.headers["User-Agent"] = f"tallyline-python/{__version__}"

    def _request(self, method, path, **kwargs):
        url = self.base_url + path
        attempt = 0
        while True:
            try:
                resp = self._session.request(method, url, timeout=self.timeout, **kwargs)
            except (requests.ConnectionError, requests.Timeout):
                if attempt >= self.max_retries:
                    raise
                attempt += 1
                time.sleep(self.backoff_factor * attempt)
                continue

            if resp.status_code in RETRY_STATUSES and attempt < self.max_retries:
                attempt += 1
                time.sleep(self.backoff_factor * attempt)
                continue

            if resp.status_code >= 400:
                try:
                    body = resp.json()
                except ValueError:
                    body = {}
                raise TallylineError(
                    resp.status_code,
                    body.get("error", "http_error"),
                    body.get("message", resp.text[:200]),
                )
            return resp.json()

    def get_record(self, record_id):
        return self._request("GET", f"/v1/records/{record_id}")

    def set_quantity(self, record_id, quantity):
        return self._request(
            "POST", f"/v1/records/{record_id}/quantity", json={"quantity": quantity}
        )

    def iter_changes(self, since, page_size=100):
        params = {"since": since, "page_size": page_size}
        while True:
            page = self._request("GET", "/v1/changes", params=params)
            yield from page["changes"]
            if not page["next"]:
                return
            params = {"page_size": page_size, **page["next"]}

    def iter_changed_records(self, since, page_size=100):
        """Yield full records changed since `since`."""
        for change in self.iter_changes(since, page_size=page_size):
            yield self.get_record(change["id"])
