"""Turn ``bench/results.json`` into the markdown table, the ratios and the PNG chart.

Rates are documents (WARC response records) per second of wall time, and per second of CPU
time (all processes of the run: on a shared machine the CPU figure is the steadier one, and it
is what a core-hour bill counts). MB/s is input WARC.gz bytes per second: each configuration is charged the compressed bytes of the records it processed, so the
figure converts directly into core-hours per 1 GB crawl file.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["markdown", "write_chart"]


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _fmt(value: float | None, digits: int = 0) -> str:
    if value is None:
        return "-"
    return f"{value:,.{digits}f}"


def markdown(results: dict) -> str:
    """The benchmark table, ratios, start-up and memory lines as markdown."""
    lines = [
        f"Machine: {results['machine']['summary']}",
        "",
        _row(
            [
                "configuration",
                "documents",
                "seconds",
                "pages/s",
                "pages/CPU-s",
                "MB/s in",
                "peak RSS MB",
            ]
        ),
        _row(["---", "---:", "---:", "---:", "---:", "---:", "---:"]),
    ]
    for config in results["configurations"]:
        lines.append(
            _row(
                [
                    config["label"],
                    _fmt(config["documents"]),
                    _fmt(config["seconds"], 1),
                    _fmt(config["pages_per_s"], 0),
                    _fmt(config["pages_per_cpu_s"], 0),
                    _fmt(config["mb_per_s"], 1),
                    _fmt(config.get("peak_rss_mb")),
                ]
            )
        )
    lines.append("")
    for name, value in results["ratios"].items():
        lines.append(f"- {name}: **{value:.2f}**")
    for text in results.get("notes", []):
        lines.append(f"- {text}")
    if results.get("profile"):
        lines += ["", _profile_markdown(results["profile"])]
    if results.get("parquet"):
        from benchmarks.bench_parquet import markdown as parquet_markdown

        lines += ["", "Parquet sizing:", "", parquet_markdown(results["parquet"])]
    return "\n".join(lines)


def _profile_markdown(profile: dict) -> str:
    """Where the worker's time goes (py-spy samples), and the top functions after the extractor."""
    lines = [
        f"Profile of the job (py-spy, {profile['samples']:,} samples of the worker):",
        "",
        "| component | share of samples |",
        "|---|---:|",
    ]
    lines += [f"| {name} | {share:.1%} |" for name, share in profile["components"].items()]
    lines += ["", "Top functions outside the extractor (self + callees in libraries):", ""]
    others = [(f, s) for f, s in profile["top_functions"] if not f.startswith("extractor")]
    lines += [f"- {share:.1%} {function}" for function, share in others[:10]]
    return "\n".join(lines)


def write_chart(results: dict, path: Path) -> None:
    """A horizontal bar chart of pages/s per configuration."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    configs = [c for c in results["configurations"] if c["pages_per_s"]]
    labels = [c["label"] for c in configs][::-1]
    rates = [c["pages_per_s"] for c in configs][::-1]
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(configs) + 1.2))
    bars = ax.barh(labels, rates, color="#4C72B0")
    ax.bar_label(bars, labels=[f"{r:,.0f}" for r in rates], padding=3, fontsize=8)
    ax.set_xlabel("pages/s (higher is better)")
    ax.set_title(f"clean-html throughput, {results['machine']['summary']}", fontsize=9)
    ax.margins(x=0.15)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
