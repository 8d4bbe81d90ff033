"""One metrics endpoint for `lovelet serve --workers N`: the supervisor reads each child's
own endpoint (on loopback) at every scrape and serves every series once more, labelled by
`role` and `process`.

Why the supervisor collects rather than prometheus-client's multiprocess mode: that mode
drops what lovelet's figures are made of (gauges read by a function at each scrape, the
per-process CPU, memory and garbage-collection collectors), wants a shared directory
cleaned at each restart, and would still need a process label added by hand. Each child
already serves its own registry; reading them costs one loopback request per child per
scrape, and a child that does not answer is reported by `lovelet_process_up` as 0.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from prometheus_client import CollectorRegistry, ProcessCollector, generate_latest
from prometheus_client.metrics_core import GaugeMetricFamily, Metric
from prometheus_client.parser import text_string_to_metric_families

SCRAPE_TIMEOUT = 2.0
"""Seconds one child may take to answer; past them it counts as down for this scrape."""
MAX_BODY = 4 * 1024 * 1024
"""Bytes read from one child at most."""


@dataclass(frozen=True)
class Scraped:
    """One process whose endpoint is read: its role, its name, and where it serves."""

    role: str
    process: str
    host: str
    port: int


class Gathered:
    """Every child's metrics with `role` and `process` labels, plus this process's own."""

    def __init__(self, children: Sequence[Scraped]) -> None:
        self.children = list(children)
        self._own = CollectorRegistry(auto_describe=True)
        ProcessCollector(registry=self._own)  # the supervisor's CPU and memory

    async def exposition(self) -> bytes:
        """The Prometheus text of every child, read now, and of this process."""
        texts = await asyncio.gather(*(read_metrics(c.host, c.port) for c in self.children))
        registry = CollectorRegistry(auto_describe=False)
        registry.register(_Merged(list(zip(self.children, texts, strict=True)), self._own))
        return generate_latest(registry)


class _Merged:
    """A collector yielding each family once, with the samples of every process."""

    def __init__(self, read: list[tuple[Scraped, str | None]], own: CollectorRegistry) -> None:
        self._read = read
        self._own = own

    def collect(self) -> Iterator[Metric]:
        families: dict[str, Metric] = {}
        own = Scraped("supervisor", "supervisor", "", 0)
        _add(families, own, self._own.collect())
        up = GaugeMetricFamily(
            "lovelet_process_up",
            "1 when the process answered this scrape, else 0.",
            labels=["role", "process"],
        )
        for child, text in self._read:
            up.add_metric([child.role, child.process], 0 if text is None else 1)
            if text is not None:
                _add(families, child, text_string_to_metric_families(text))
        yield up
        yield from families.values()


def _add(families: dict[str, Metric], child: Scraped, read: Iterable[Metric]) -> None:
    """Add each family's samples to `families`, labelled with the child's role and name."""
    for family in read:
        merged = families.get(family.name)
        if merged is None:
            merged = families[family.name] = Metric(
                family.name, family.documentation, family.type, family.unit
            )
        for sample in family.samples:
            labels = {**sample.labels, "role": child.role, "process": child.process}
            merged.add_sample(sample.name, labels, sample.value, sample.timestamp)


async def read_metrics(host: str, port: int) -> str | None:
    """The body of `GET /metrics` at host:port, or None if it does not answer in time."""
    try:
        return await asyncio.wait_for(_get(host, port), SCRAPE_TIMEOUT)
    except (TimeoutError, OSError, ValueError, asyncio.IncompleteReadError):
        return None


async def _get(host: str, port: int) -> str | None:
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(f"GET /metrics HTTP/1.1\r\nHost: {host}\r\n\r\n".encode("ascii"))
        await writer.drain()
        response = b""
        while chunk := await reader.read(65536):
            response += chunk
            if len(response) > MAX_BODY:
                return None
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
    head, _, body = response.partition(b"\r\n\r\n")
    return body.decode() if head.startswith(b"HTTP/1.1 200") else None
