#!/usr/bin/python3
"""Prove that the numbers in nanotrn's HTML run report equal their sources.
Independently of the C++ writer, this parses the report (stdlib html.parser)
and the run's metrics.jsonl / `nanotrn predict --json` / core.json (json), and
checks every data-key scalar (data-value, %.17g: relative 1e-12, integers
exactly) and every plot series (data-points, raw %.9g values: relative 1e-6,
same number of points, same order). A missing key, plot or series is a failure.
Prints one line per check and `report numbers: N/M checks equal`; exit 1 on
any failure, 0 when all equal. Stdlib only."""
import argparse, html.parser, json, math, sys


class Report(html.parser.HTMLParser):
    """Collects data-key scalars and the series / bars inside each svg.plot."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.scalars, self.plots, self.svgs = {}, {}, []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get('class') or '').split()
        if 'data-key' in a:
            self.scalars.setdefault(a['data-key'], []).append(a.get('data-value'))
        if tag == 'svg':
            name = a.get('data-plot') if 'plot' in cls else None
            if name is not None:
                self.plots.setdefault(name, {'series': {}, 'bars': []})
            self.svgs.append(name if name is not None else (self.svgs[-1] if self.svgs else None))
        plot = self.svgs[-1] if self.svgs else None
        if plot is None:
            return
        if tag == 'polyline' and 'series' in cls:
            self.plots[plot]['series'].setdefault(a.get('data-series', ''), []).append(
                a.get('data-points'))
        elif tag == 'rect' and 'bar' in cls:
            self.plots[plot]['bars'].append((a.get('data-label'), a.get('data-value')))

    def handle_endtag(self, tag):
        if tag == 'svg' and self.svgs:
            self.svgs.pop()


def num(v):
    """A JSON number, or null / "NaN" / "inf" strings, as a float (null -> nan)."""
    if v is None:
        return math.nan
    if isinstance(v, bool) or not isinstance(v, (int, float, str)):
        raise ValueError(f'not a number: {v!r}')
    return float(v) if isinstance(v, str) else v


def close(a, b, rel):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b or abs(a - b) <= rel * max(abs(a), abs(b))


class Checker:
    def __init__(self, report):
        self.r, self.passed, self.failed = report, 0, 0

    def result(self, ok, text):
        print(('ok   ' if ok else 'FAIL ') + text)
        self.passed += ok
        self.failed += not ok

    def scalar(self, key, expected, integer=False):
        raws = self.r.scalars.get(key)
        if not raws:
            return self.result(False, f'{key}: missing from the report (no data-key="{key}")')
        bad = []
        for raw in raws:
            try:
                got = (int(raw) if raw.lstrip('-').isdigit() else float(raw)) if integer else float(raw)
                ok = got == expected if integer else close(got, float(expected), 1e-12)
            except (TypeError, ValueError, AttributeError):
                ok = False
            bad += [] if ok else [raw]
        many = f' ({len(raws)} elements)' if len(raws) > 1 else ''
        if bad:
            return self.result(False, f'{key} {" ".join(map(str, bad))} != {expected!r}{many}')
        self.result(True, f'{key} {raws[0]} == {expected!r}{many}')

    def absent(self, key, why):
        self.result(key not in self.r.scalars,
                    f'{key} absent ({why})' if key not in self.r.scalars else
                    f'{key} present ({self.r.scalars[key]}) but {why}')

    def series(self, plot, name, expected, optional=False):
        where = f'plot {plot} series {name}'
        if plot not in self.r.plots:
            if optional:
                return self.result(True, f'{where}: plot absent, metrics have no points')
            return self.result(False, f'{where}: plot missing (no svg.plot data-plot="{plot}")')
        occ = self.r.plots[plot]['series'].get(name)
        if not occ:
            return self.result(not expected, f'{where}: ' + (
                f'series missing, metrics have {len(expected)} points' if expected else 'no points'))
        for raw in occ:
            try:
                got = [tuple(float(v) for v in p.split(',')) for p in (raw or '').split()]
                if any(len(p) != 2 for p in got):
                    raise ValueError('a point is not "x,y"')
            except ValueError as e:
                return self.result(False, f'{where}: bad data-points ({e}): {raw[:80]!r}')
            diff = next((i for i, (g, x) in enumerate(zip(got, expected))
                         if not (close(g[0], x[0], 1e-6) and close(g[1], x[1], 1e-6))), None)
            if diff is not None:
                return self.result(False, f'{where}: point {diff} is {got[diff]} in the report, '
                                          f'{expected[diff]} in the metrics')
            if len(got) != len(expected):
                return self.result(False, f'{where}: {len(got)} points in the report, '
                                          f'{len(expected)} in the metrics')
        self.result(True, f'{where}: {len(expected)} points equal'
                    + (f' ({len(occ)} polylines)' if len(occ) > 1 else ''))


def load_json(path, what):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f'report_numbers: cannot read {what} {path}: {e}')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--html', required=True)
    ap.add_argument('--metrics', required=True)
    ap.add_argument('--prediction', action='append', default=[], metavar='DEVICE=FILE')
    ap.add_argument('--core')
    args = ap.parse_args()
    preds = [spec.partition('=') for spec in args.prediction]
    for dev, sep, path in preds:
        if not (dev and sep and path):
            sys.exit(f'report_numbers: --prediction wants DEVICE=FILE, got {dev + sep + path!r}')
    report = Report()
    try:
        with open(args.html, encoding='utf-8') as f:
            report.feed(f.read())
        report.close()
        with open(args.metrics) as f:
            events = [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError) as e:
        sys.exit(f'report_numbers: cannot read input: {e}')
    c = Checker(report)
    # a resume from an earlier checkpoint re-runs steps: a step's later record replaces the earlier ones
    steps = []
    for e in events:
        if e.get('event') != 'step':
            continue
        while steps and steps[-1].get('step') >= e.get('step'):
            steps.pop()
        steps.append(e)
    evals = [e for e in events if e.get('event') == 'eval']
    summaries = [e for e in events if e.get('event') == 'summary']
    if not summaries:
        c.result(False, f'metrics {args.metrics}: no "summary" event')
    if not steps:
        c.result(False, f'metrics {args.metrics}: no "step" events')
    if summaries:
        s = summaries[-1]
        c.scalar('run.steps', s.get('steps'), integer=True)
        c.scalar('run.tokens', s.get('tokens'), integer=True)
        c.scalar('run.charged_seconds', num(s.get('charged_seconds')))
        vb = num(s.get('val_bpb'))
        if math.isfinite(vb):
            c.scalar('run.val_bpb', vb)
        else:
            c.absent('run.val_bpb', f'summary val_bpb is {s.get("val_bpb")!r}')
    if steps:
        c.scalar('run.final_loss', num(steps[-1].get('loss')))

    def pts(evs, xkey, ykey):
        return [(num(e.get(xkey)), num(e.get(ykey))) for e in evs]

    c.series('loss_vs_step', 'train', pts(steps, 'step', 'loss'))
    c.series('loss_vs_time', 'train', pts(steps, 'charged_seconds', 'loss'))
    for plot, key in (('throughput', 'tokens_per_second'), ('schedules', 'lr_multiplier'),
                      ('schedules', 'muon_momentum'), ('schedules', 'weight_decay')):
        have = [e for e in steps if key in e]
        c.series(plot, key, pts(have, 'step', key), optional=not have)
    val = pts(evals, 'step', 'val_bpb')
    if summaries and math.isfinite(num(summaries[-1].get('val_bpb'))):
        s = summaries[-1]
        val.append((num(s.get('step', s.get('steps'))), num(s['val_bpb'])))
    c.series('val_bpb', 'val', val, optional=not val)

    devices = {dev for dev, _, _ in preds}
    for dev, _, path in preds:
        pred = load_json(path, 'prediction')
        phases = pred.get('phases') or []
        if not phases:
            c.result(False, f'prediction {path}: no "phases"')
        else:
            for field in ('step_s', 'tokens_per_s', 'mfu'):
                c.scalar(f'predict.{dev}.{field}', num(phases[-1].get(field)))
        c.scalar(f'predict.{dev}.steps', pred.get('steps'), integer=True)
        c.scalar(f'predict.{dev}.budget_s', num(pred.get('budget_s')))
    extra = sorted({k.split('.')[1] for k in report.scalars
                    if k.startswith('predict.') and k.count('.') >= 2} - devices)
    if extra:
        print(f'note: report also predicts {", ".join(extra)} (no --prediction given; not checked)')

    if args.core:
        core = load_json(args.core, 'core results')
        c.scalar('core.score', num(core.get('core')))
        for task in core.get('tasks') or []:
            c.scalar(f'core.task.{task.get("label")}', num(task.get('centered')))
        if not core.get('tasks'):
            c.result(False, f'core results {args.core}: no "tasks"')

    total = c.passed + c.failed
    print(f'report numbers: {c.passed}/{total} checks equal')
    return 1 if c.failed else 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except (ValueError, TypeError, AttributeError) as e:   # e.g. a non-numeric field
        sys.exit(f'report_numbers: FAIL: malformed input: {type(e).__name__}: {e}')
