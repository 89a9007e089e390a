"""The synth's verdict (`make synth`, and every `cdk synth|deploy` run of infra/app.py): CDK's own warnings
and cdk-nag's AwsSolutions findings are printed, and any left fails the synth.

    run(app, stack, out)   acknowledge (nag.py), check, synthesize, print the report; 0 or 1
    check(app, stack)      the same without printing: the Report

A warning left (an annotation at warning or error level that no `acknowledge_warning` answered) or a
cdk-nag finding left (one that focal_infra/nag.py does not acknowledge) fails the synth (CDK warnings are
acknowledged, each with its reason, through focal_infra/acknowledged.py): the template
is still written, so it can be read, but the exit status is 1 and `cdk deploy` stops before deploying.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TextIO

from aws_cdk import App, Stack, cx_api
from cdk_nag import AwsSolutionsChecks

from focal_infra import nag
from focal_infra.acknowledged import Acknowledged, acknowledged_warnings


@dataclass(frozen=True)
class Finding:
    path: str
    id: str
    text: str

    def __str__(self) -> str:
        return f"{self.path}: [{self.id}] {self.text}"


@dataclass
class Report:
    stack: str
    warnings: list[Finding] = field(default_factory=list)  # CDK annotations left (warning or error level)
    acknowledged_warnings: list[Acknowledged] = field(default_factory=list)
    nag_findings: list[Finding] = field(default_factory=list)  # before acknowledgment
    nag_acknowledged: list[Acknowledged] = field(default_factory=list)
    nag_left: list[Finding] = field(default_factory=list)
    template: str | None = None

    @property
    def ok(self) -> bool:
        return not self.warnings and not self.nag_left

    def lines(self) -> list[str]:
        out = [f"{self.stack}: CDK warnings: {len(self.warnings)} left, {len(self.acknowledged_warnings)} acknowledged"]
        out += [f"  WARNING {w}" for w in self.warnings]
        out += [f"  acknowledged {n}x {wid}: {reason}" for (wid, reason), n in _grouped(self.acknowledged_warnings)]
        out.append(f"{self.stack}: cdk-nag AwsSolutions: {len(self.nag_findings)} findings, "
                   f"{len(self.nag_findings) - len(self.nag_left)} acknowledged with reasons (focal_infra/nag.py), "
                   f"{len(self.nag_left)} left")
        out += [f"  NOT ACKNOWLEDGED {f}" for f in self.nag_left]
        out += [f"  acknowledged {n}x {fid}: {reason}" for (fid, reason), n in _answered(self.nag_findings,
                                                                                           self.nag_acknowledged)]
        if self.template:
            out.append(f"{self.stack}: {self.template}")
        out.append(f"{self.stack}: synth {'OK' if self.ok else 'FAILED: warnings or cdk-nag findings left (above)'}")
        return out


def _grouped(acks: list[Acknowledged]) -> list[tuple[tuple[str, str], int]]:
    return sorted(Counter((a.id, a.reason) for a in acks).items())


def _answered(findings: list[Finding], acks: list[Acknowledged]) -> list[tuple[tuple[str, str], int]]:
    """(finding id, reason) → how many findings that acknowledgment answered (one covers a construct's children)."""
    counts: Counter[tuple[str, str]] = Counter()
    for f in findings:
        ack = next((a for a in acks if a.id == f.id and (f.path == a.path or f.path.startswith(a.path + "/"))), None)
        if ack is not None:
            counts[(ack.id, ack.reason)] += 1
    return sorted(counts.items())


def nag_findings(app: App, stack: Stack) -> list[Finding]:
    """Every AwsSolutions finding on `stack` that no acknowledgment answers (yet), one per resource."""
    report = AwsSolutionsChecks(app).validate_scope(stack)
    return [Finding(r.construct_path, v.rule_name, v.description)
            for v in report.violations for r in v.violating_resources]


def left_warnings(assembly: cx_api.CloudAssembly) -> list[Finding]:
    """The annotations at warning or error level in the synthesized assembly (acknowledged ones are gone)."""
    levels = {cx_api.SynthesisMessageLevel.WARNING, cx_api.SynthesisMessageLevel.ERROR}
    found = []
    for artifact in assembly.artifacts:
        for message in artifact.messages:
            if message.level in levels:
                text = str(message.entry.data)
                warning_id = text.rsplit("[ack: ", 1)[1].rstrip("]") if "[ack: " in text else message.entry.type
                found.append(Finding(message.id, warning_id, text.split(" [ack: ")[0]))
    return found


def check(app: App, stack: Stack) -> Report:
    """Acknowledge the accepted findings, synthesize, and report what is left (nothing is printed)."""
    report = Report(stack.stack_name)
    report.nag_findings = nag_findings(app, stack)
    report.nag_acknowledged = nag.acknowledge(stack)
    report.nag_left = nag_findings(app, stack)
    assembly = app.synth()
    report.warnings = left_warnings(assembly)
    report.acknowledged_warnings = acknowledged_warnings(stack)
    report.template = f"{assembly.directory}/{stack.template_file}"
    return report


def run(app: App, stack: Stack, out: TextIO) -> int:
    report = check(app, stack)
    for line in report.lines():
        print(line, file=out)
    return 0 if report.ok else 1
