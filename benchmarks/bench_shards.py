"""Build the throughput benchmark's WARC.gz shards from the pages in ``../shared/corpus``.

Each corpus page becomes a crawl capture as Common Crawl writes it: a ``request``, a
``response`` (HTTP/1.1 with realistic headers) and a ``metadata`` record, each its own gzip
member. To look like a real crawl rather than one server's output, a third of the responses are
sent with ``Content-Encoding: gzip`` and a quarter carry no charset in ``Content-Type``. Pages
repeat with distinct URLs until a shard reaches its size.

The records are serialised by warcio's ``WARCWriter`` (uncompressed) and each record is then
gzipped at level 6, the default of zlib and of most crawlers (warcio's own gzip mode uses
level 9, which makes a 1 GB file take minutes longer to build and is not what crawls use).

Shards are cached under ``bench/shards``: a shard is rebuilt only when missing or when its
recipe (``RECIPE_VERSION``, the page count or the target size) changes. The corpus is read in
place and never copied into the repository.
"""

from __future__ import annotations

import datetime
import gzip
import hashlib
import io
import json
import os
import uuid
import zlib
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from warcio.warcwriter import WARCWriter

__all__ = [
    "CORPUS",
    "Page",
    "ShardSpec",
    "build_shards",
    "corpus_available",
    "load_pages",
]

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("CORPUS", ROOT.parent / "shared" / "corpus"))
RECIPE_VERSION = 1
GZIP_LEVEL = 6
CRAWL_DATE = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
SERVERS = ("nginx", "Apache/2.4.62 (Ubuntu)", "cloudflare", "Microsoft-IIS/10.0", "openresty")


@dataclass(frozen=True)
class Page:
    """One corpus page: its original URL (or a made-up one) and its HTML bytes (UTF-8)."""

    url: str
    html: bytes


@dataclass(frozen=True)
class ShardSpec:
    """A shard to build: ``pages`` captures, or as many as it takes to reach ``min_bytes``.

    ``first`` is the global index of the first capture, so that URLs stay distinct across
    shards; ``parts`` > 1 builds the file in that many processes (gzip members concatenate).
    """

    name: str
    first: int
    pages: int = 0
    min_bytes: int = 0
    parts: int = 1


def corpus_available() -> bool:
    """True when ``../shared/corpus`` holds the pages this benchmark is built from."""
    return (CORPUS / "wcxb-dev" / "html").is_dir()


def _page_urls() -> dict[str, str]:
    urls: dict[str, str] = {}
    aeb_truth = CORPUS / "aeb" / "ground-truth.json"
    if aeb_truth.exists():
        for page_id, item in json.loads(aeb_truth.read_text(encoding="utf-8")).items():
            if item.get("url"):
                urls[f"aeb/{page_id}"] = item["url"]
    for path in (CORPUS / "wcxb-dev" / "ground-truth").glob("*.json"):
        url = json.loads(path.read_text(encoding="utf-8")).get("url")
        if url:
            urls[f"wcxb-dev/{path.stem}"] = url
    return urls


def load_pages() -> list[Page]:
    """Every page of wcxb-dev and aeb, in a fixed order, decompressed."""
    urls = _page_urls()
    pages = []
    for corpus in ("wcxb-dev", "aeb"):
        for path in sorted((CORPUS / corpus / "html").glob("*.html.gz")):
            key = f"{corpus}/{path.name.split('.')[0]}"
            url = urls.get(key, f"https://{corpus}.example/{path.name.split('.')[0]}")
            pages.append(Page(url=url, html=gzip.decompress(path.read_bytes())))
    return pages


def _capture_url(url: str, index: int, repeat: int) -> str:
    """The page's URL made distinct for its ``repeat``-th copy (the first copy keeps it as is)."""
    if repeat == 0:
        return url
    return f"{url}{'&' if '?' in url else '?'}bench={index}"


def _http_response(page: Page, index: int) -> bytes:
    """The HTTP/1.1 response for capture ``index``: gzip-encoded for a third, no charset for a quarter."""
    body = page.html
    content_type = "text/html" if index % 4 == 1 else "text/html; charset=utf-8"
    date = (CRAWL_DATE + datetime.timedelta(seconds=index)).strftime("%a, %d %b %Y %H:%M:%S GMT")
    headers = [
        ("Date", date),
        ("Server", SERVERS[index % len(SERVERS)]),
        ("Content-Type", content_type),
        ("Cache-Control", "max-age=600, public"),
        ("Vary", "Accept-Encoding"),
        ("X-Frame-Options", "SAMEORIGIN"),
        ("Set-Cookie", f"sid={hashlib.sha1(str(index).encode()).hexdigest()[:16]}; Path=/"),
    ]
    if index % 3 == 0:
        body = gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0)
        headers.append(("Content-Encoding", "gzip"))
    headers += [("Content-Length", str(len(body))), ("Connection", "close")]
    head = "HTTP/1.1 200 OK\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers) + "\r\n"
    return head.encode("latin-1") + body


def _http_request(url: str) -> bytes:
    rest = url.split("://", 1)[-1]
    host, _, path = rest.partition("/")
    return (
        f"GET /{path} HTTP/1.1\r\nHost: {host}\r\n"
        "User-Agent: CCBot/2.0 (https://commoncrawl.org/faq/)\r\n"
        "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\n"
        "Accept-Language: en-US,en;q=0.5\r\nAccept-Encoding: br,gzip\r\nConnection: close\r\n\r\n"
    ).encode("latin-1")


def _gzip_member(data: bytes) -> bytes:
    compressor = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, zlib.MAX_WBITS + 16)
    return compressor.compress(data) + compressor.flush()


def _record_bytes(
    writer: WARCWriter, buffer: io.BytesIO, url: str, kind: str, block: bytes, **headers
) -> bytes:
    """One WARC record serialised by warcio (uncompressed), then gzipped as its own member."""
    buffer.seek(0)
    buffer.truncate()
    content_type = {
        "request": "application/http; msgtype=request",
        "response": "application/http; msgtype=response",
        "metadata": "application/warc-fields",
    }[kind]
    record = writer.create_warc_record(
        url,
        kind,
        payload=io.BytesIO(block),
        length=len(block),
        warc_headers_dict=headers,
        warc_content_type=content_type,
    )
    writer.write_record(record)
    return _gzip_member(buffer.getvalue())


def _captures(pages: list[Page], index: int) -> Iterator[tuple[int, Page]]:
    while True:
        yield index, pages[index % len(pages)]
        index += 1


def _write_part(path: Path, first: int, step: int, pages_wanted: int, min_bytes: int) -> int:
    """Write captures ``first, first+step, ...`` to ``path``; return how many were written."""
    pages = load_pages()
    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=False, warc_version="WARC/1.1")
    written = size = 0
    with open(path, "wb") as out:
        index = first
        while (pages_wanted and written < pages_wanted) or (min_bytes and size < min_bytes):
            page = pages[index % len(pages)]
            url = _capture_url(page.url, index, index // len(pages))
            date = (CRAWL_DATE + datetime.timedelta(seconds=index)).strftime("%Y-%m-%dT%H:%M:%SZ")
            response_id = f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, f'response {url}')}>"
            common = {"WARC-Date": date, "WARC-IP-Address": f"192.0.2.{index % 250 + 1}"}
            for kind, block, extra in (
                ("request", _http_request(url), {}),
                ("response", _http_response(page, index), {}),
                (
                    "metadata",
                    f"fetchTimeMs: {50 + index % 400}\r\ncharset-detected: UTF-8\r\n".encode(),
                    {"WARC-Concurrent-To": response_id},
                ),
            ):
                record_id = (
                    response_id
                    if kind == "response"
                    else f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, f'{kind} {url}')}>"
                )
                data = _record_bytes(
                    writer,
                    buffer,
                    url,
                    kind,
                    block,
                    **common,
                    **extra,
                    **{"WARC-Record-ID": record_id},
                )
                out.write(data)
                size += len(data)
            written += 1
            index += step
    return written


def _stamp(spec: ShardSpec) -> str:
    return json.dumps(
        {"recipe": RECIPE_VERSION, "first": spec.first, "pages": spec.pages, "min": spec.min_bytes}
    )


def _build_one(spec: ShardSpec, directory: Path) -> None:
    """Build one shard (in ``spec.parts`` processes when it is big) and stamp it when complete."""
    path = directory / spec.name
    parts = [path.with_suffix(f".part{i}") for i in range(spec.parts)]
    if spec.parts == 1:
        _write_part(parts[0], spec.first, 1, spec.pages, spec.min_bytes)
    else:
        with ProcessPoolExecutor(spec.parts) as pool:
            jobs = [
                pool.submit(
                    _write_part,
                    part,
                    spec.first + i,
                    spec.parts,
                    -(-spec.pages // spec.parts),
                    -(-spec.min_bytes // spec.parts),
                )
                for i, part in enumerate(parts)
            ]
            for job in jobs:
                job.result()
    with open(path, "wb") as out:  # concatenated gzip members are one valid WARC.gz
        for part in parts:
            with open(part, "rb") as f:
                while chunk := f.read(1 << 24):
                    out.write(chunk)
            part.unlink()
    path.with_suffix(".stamp").write_text(_stamp(spec))


def build_shards(specs: list[ShardSpec], directory: Path, workers: int = 2) -> list[Path]:
    """Build the shards of ``specs`` that are missing or stale in ``directory``; return all paths."""
    directory.mkdir(parents=True, exist_ok=True)
    stale = [
        spec
        for spec in specs
        if not (directory / spec.name).exists()
        or not (directory / spec.name).with_suffix(".stamp").exists()
        or (directory / spec.name).with_suffix(".stamp").read_text() != _stamp(spec)
    ]
    small = [spec for spec in stale if spec.parts == 1]
    if small:
        with ProcessPoolExecutor(workers) as pool:
            for job in [pool.submit(_build_one, spec, directory) for spec in small]:
                job.result()
    for spec in stale:
        if spec.parts > 1:
            _build_one(spec, directory)
    return [directory / spec.name for spec in specs]
