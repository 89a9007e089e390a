"""`focal bench prevalidation FILE|DIR|shared [--show]`: which report a target asks for.

- a folder of `messages.LANG.yaml` files: the figures per language (focal.bench.prevalidation_languages);
- another folder, or the word `shared`: the sources never trained on, one by one (focal.bench.prevalidation_sources);
- a file: one labelled set (focal.bench.prevalidation).
"""

from __future__ import annotations

from pathlib import Path


def cli(args) -> int:
    from focal.bench.prevalidation_languages import language_files

    target = args.file
    if Path(target).is_dir() and language_files(target):
        from focal.bench.prevalidation_languages import languages_report

        print(languages_report(target, show=args.show))
    elif target == "shared" or Path(target).is_dir():
        from focal.bench.prevalidation_sources import shared_report

        print(shared_report(target, show=args.show))
    else:
        from focal.bench.prevalidation import report

        print(report(target, show=args.show))
    return 0
