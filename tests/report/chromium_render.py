#!/usr/bin/python3
"""Render a self-contained HTML report in headless Chromium and prove that
 (a) it loads with no console error, assert, uncaught exception or Log error,
 (b) it makes no network request: only its own file:// URL and data: URLs,
 (c) every <svg class="plot"> paints something: its screenshot, decoded here
     by a stdlib PNG decoder, has luminance variance >= 4 and >= 3 colours.
Chromium is driven over the DevTools protocol on --remote-debugging-pipe
(child fd 3 = commands in, fd 4 = replies/events out, NUL-terminated JSON).
Exit 0: all good; 1: failures (listed on stderr); 2: Chromium did not start
or did not answer within --timeout. Stdlib only; never needs the network."""
import argparse, base64, fcntl, json, os, pathlib, select, shutil, signal
import struct, subprocess, sys, tempfile, time, zlib
from urllib.parse import unquote


class NoAnswer(Exception):
    """Chromium did not start, died, or did not answer in time."""


def decode_png(data):
    """8-bit RGB/RGBA, non-interlaced PNG -> (width, height, bpp, rows)."""
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError('not a PNG')
    pos, idat, hdr = 8, [], None
    while pos + 8 <= len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body, pos = data[pos + 8:pos + 8 + length], pos + 12 + length
        if kind == b'IHDR':
            hdr = struct.unpack('>IIBBBBB', body)
        idat += [body] if kind == b'IDAT' else []
        if kind == b'IEND':
            break
    if hdr is None:
        raise ValueError('PNG without IHDR')
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError(f'unsupported PNG: depth {depth} colour type {ctype} interlace {interlace}')
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(b''.join(idat)), w * bpp
    prev, rows = bytearray(stride), []
    for y in range(h):
        off = y * (stride + 1)
        ft, line = raw[off], bytearray(raw[off + 1:off + 1 + stride])
        if ft == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif ft == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif ft == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif ft == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)  # Paeth predictor
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        elif ft != 0:
            raise ValueError(f'bad PNG filter type {ft} in row {y}')
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def pixel_stats(w, h, bpp, rows):
    """(luminance variance, number of distinct RGB colours)."""
    n, s, s2, colours = w * h, 0.0, 0.0, set()
    for row in rows:
        r, g, b = row[0::bpp], row[1::bpp], row[2::bpp]
        colours.update(zip(r, g, b))
        lum = [0.299 * x + 0.587 * y + 0.114 * z for x, y, z in zip(r, g, b)]
        s, s2 = s + sum(lum), s2 + sum(v * v for v in lum)
    if n == 0:
        return 0.0, 0
    return max(0.0, s2 / n - (s / n) ** 2), len(colours)


class Cdp:
    def __init__(self, wfd, rfd, deadline):
        self.w, self.r, self.deadline = wfd, rfd, deadline
        self.buf, self.scan, self.last_id, self.events = bytearray(), 0, 0, []

    def send(self, method, params=None, session=None):
        self.last_id += 1
        msg = {'id': self.last_id, 'method': method, 'params': params or {},
               **({'sessionId': session} if session else {})}
        data = json.dumps(msg).encode() + b'\0'
        while data:
            data = data[os.write(self.w, data):]
        return self.last_id

    def recv(self, until):
        """Next message, or None when `until` passes first (NoAnswer past the deadline)."""
        while True:
            nul = self.buf.find(b'\0', self.scan)
            if nul >= 0:
                msg = json.loads(bytes(self.buf[:nul]))
                del self.buf[:nul + 1]
                self.scan = 0
                if 'method' in msg:
                    self.events.append(msg)
                return msg
            self.scan = len(self.buf)
            left = min(until, self.deadline) - time.monotonic()
            if left <= 0 or not select.select([self.r], [], [], left)[0]:
                if time.monotonic() >= self.deadline:
                    raise NoAnswer('Chromium did not answer within the timeout')
                return None
            chunk = os.read(self.r, 1 << 20)
            if not chunk:
                raise NoAnswer('Chromium closed the DevTools pipe (it exited)')
            self.buf += chunk

    def call(self, method, params=None, session=None):
        want = self.send(method, params, session)
        while True:
            msg = self.recv(self.deadline)
            if msg is not None and msg.get('id') == want:
                if 'error' in msg:
                    raise NoAnswer(f'{method} failed: {msg["error"]}')
                return msg.get('result', {})

    def settle(self, quiet=0.3, cap=5.0):
        stop = time.monotonic() + cap
        while time.monotonic() < stop and self.recv(time.monotonic() + quiet) is not None:
            pass


PLOTS_JS = r"""(() => {
  const d = document.documentElement, b = document.body;
  const plots = Array.from(document.querySelectorAll('svg.plot'), (el, i) => {
    const r = el.getBoundingClientRect();
    return {name: el.dataset.plot || ('#' + i), x: r.left + window.scrollX,
            y: r.top + window.scrollY, width: r.width, height: r.height};
  });
  return {plots, height: Math.max(d.scrollHeight, b ? b.scrollHeight : 0),
          width: Math.max(d.scrollWidth, b ? b.scrollWidth : 0)};
})()"""


def shot(cdp, sid, x, y, w, h):
    res = cdp.call('Page.captureScreenshot', {'format': 'png', 'captureBeyondViewport': True,
                   'clip': {'x': x, 'y': y, 'width': w, 'height': h, 'scale': 1}}, sid)
    return base64.b64decode(res['data'])


def inspect(cdp, args, url):
    failures, summary = [], {'requests': [], 'console_errors': [], 'plots': []}
    tinfo = cdp.call('Target.getTargets')['targetInfos']
    page = (next((t['targetId'] for t in tinfo if t['type'] == 'page'), None)
            or cdp.call('Target.createTarget', {'url': 'about:blank'})['targetId'])
    sid = cdp.call('Target.attachToTarget', {'targetId': page, 'flatten': True})['sessionId']
    for domain in ('Page', 'Runtime', 'Log', 'Network'):
        cdp.call(domain + '.enable', {}, sid)
    cdp.call('Emulation.setDeviceMetricsOverride', {'width': args.width, 'height': 900,
             'deviceScaleFactor': 1, 'mobile': False}, sid)
    mark = len(cdp.events)
    nav = cdp.call('Page.navigate', {'url': url}, sid)
    if nav.get('errorText'):
        failures.append(f'navigation to {url} failed: {nav["errorText"]}')
    while not any(e['method'] == 'Page.loadEventFired' and e.get('sessionId') == sid
                  for e in cdp.events[mark:]):
        cdp.recv(cdp.deadline)
    cdp.settle()
    layout = cdp.call('Runtime.evaluate', {'expression': PLOTS_JS, 'returnByValue': True},
                      sid)['result']['value']
    pathlib.Path(args.png).write_bytes(
        shot(cdp, sid, 0, 0, max(args.width, layout['width']), max(1, layout['height'])))
    for p in layout['plots']:
        entry = {'name': p['name'], 'width': round(p['width'], 2), 'height': round(p['height'], 2),
                 'variance': 0.0, 'distinct_colours': 0, 'blank': True}
        if p['width'] >= 1 and p['height'] >= 1:
            var, ncol = pixel_stats(*decode_png(shot(cdp, sid, p['x'], p['y'], p['width'], p['height'])))
            entry.update(variance=round(var, 3), distinct_colours=ncol, blank=var < 4.0 or ncol < 3)
        if entry['blank']:
            failures.append(f'plot "{p["name"]}" is blank (variance {entry["variance"]}, '
                            f'{entry["distinct_colours"]} colours, {entry["width"]}x{entry["height"]} px)')
        summary['plots'].append(entry)
    if not layout['plots']:
        failures.append('no plots on the page (no svg.plot element)')
    names = {p['name'] for p in layout['plots']}
    failures += [f'expected plot "{w}" is missing' for w in
                 filter(None, map(str.strip, args.expect_plots.split(','))) if w not in names]
    cdp.settle(0.1, 1.0)
    page_file, urls, errs = unquote(url), {}, summary['console_errors']
    for e in (e for e in cdp.events[mark:] if e.get('sessionId') == sid):
        m, prm = e['method'], e.get('params', {})
        if m == 'Network.requestWillBeSent':
            u = prm['request']['url']
            urls[prm.get('requestId')] = u
            summary['requests'].append(u)
            if not (u.startswith('data:') or unquote(u.split('#')[0]) == page_file):
                failures.append(f'network request not allowed: {u}')
        elif m == 'Network.loadingFailed':
            failures.append(f'request failed: {urls.get(prm.get("requestId"), "?")} '
                            f'({prm.get("errorText", "")})')
        elif m == 'Runtime.consoleAPICalled' and prm.get('type') in ('error', 'assert'):
            text = ' '.join(str(a.get('value', a.get('description', a.get('type'))))
                            for a in prm.get('args', []))
            errs.append(f'console.{prm["type"]}: {text}')
        elif m == 'Runtime.exceptionThrown':
            d = prm.get('exceptionDetails', {})
            errs.append(f'uncaught exception: {d.get("exception", {}).get("description") or d.get("text")}')
        elif m == 'Log.entryAdded' and prm.get('entry', {}).get('level') == 'error':
            ent = prm['entry']
            errs.append(f'log error ({ent.get("source")}): {ent.get("text")} {ent.get("url", "")}'.rstrip())
    return summary, failures + errs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    for flag, kw in (('--html', {'required': True}), ('--png', {'required': True}),
                     ('--chromium', {'default': '/usr/bin/chromium'}),
                     ('--timeout', {'type': float, 'default': 90}), ('--expect-plots', {'default': ''}),
                     ('--width', {'type': int, 'default': 1280})):
        ap.add_argument(flag, **kw)
    args = ap.parse_args()
    html = pathlib.Path(args.html).resolve()
    if not html.is_file():
        print(f'chromium_render: ERROR: no such file {html}', file=sys.stderr)
        return 2
    url, tmp = html.as_uri(), tempfile.mkdtemp(prefix='chromium_render.')
    cmd_r, cmd_w = os.pipe()      # we write commands; Chromium reads them as fd 3
    evt_r, evt_w = os.pipe()      # Chromium writes replies as fd 4; we read them
    # Move the child's ends to fds >= 10 so dup2 onto 3/4 cannot clobber one of them.
    child_in = fcntl.fcntl(cmd_r, fcntl.F_DUPFD_CLOEXEC, 10)
    child_out = fcntl.fcntl(evt_w, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(cmd_r), os.close(evt_w)

    def preexec():
        os.dup2(child_in, 3)      # dup2 clears close-on-exec on 3 and 4 only
        os.dup2(child_out, 4)
        for fd in map(int, os.listdir('/proc/self/fd')):   # drop fds leaked in by our caller
            try:
                if fd > 4 and os.get_inheritable(fd):
                    os.close(fd)
            except OSError:
                pass

    flags = ['--headless=new'] + (['--no-sandbox'] if os.geteuid() == 0 else []) + [
        '--disable-gpu', '--no-first-run', '--no-default-browser-check', '--disable-extensions',
        '--disable-background-networking', '--disable-component-update', '--disable-sync',
        '--metrics-recording-only', '--disable-dev-shm-usage', '--user-data-dir=' + tmp + '/profile',
        '--remote-debugging-pipe', 'about:blank']
    errlog = open(os.path.join(tmp, 'chromium.log'), 'wb')
    t0, proc, cdp, code = time.monotonic(), None, None, 2
    try:
        # close_fds=False on purpose: pass_fds would close fds 3/4 after preexec_fn has
        # set them up; every other fd Python owns is already close-on-exec.
        proc = subprocess.Popen([args.chromium] + flags, stdin=subprocess.DEVNULL, stdout=errlog,
                                stderr=errlog, close_fds=False, preexec_fn=preexec,
                                start_new_session=True)
        os.close(child_in), os.close(child_out)
        cdp = Cdp(cmd_w, evt_r, t0 + args.timeout)
        summary, failures = inspect(cdp, args, url)
        out = {'html': str(html), 'png': str(pathlib.Path(args.png).resolve()), **summary,
               'failures': failures, 'seconds': round(time.monotonic() - t0, 2)}
        print(json.dumps(out, indent=1))
        for f in failures:
            print(f'chromium_render: FAIL: {f}', file=sys.stderr)
        code = 1 if failures else 0
    except (NoAnswer, OSError, ValueError, KeyError) as e:
        errlog.flush()
        tail = pathlib.Path(tmp, 'chromium.log').read_text(errors='replace')[-2000:]
        status = ('not started' if proc is None else 'still running' if proc.poll() is None
                  else f'exit status {proc.returncode}')
        print(f'chromium_render: ERROR: {type(e).__name__}: {e} (after {time.monotonic() - t0:.1f}s; '
              f'command: {args.chromium}, {status})\n--- chromium output (tail) ---\n{tail}', file=sys.stderr)
    finally:
        if proc is not None:
            try:
                if code != 2 and proc.poll() is None:   # healthy session: ask politely first
                    cdp.send('Browser.close')
                    proc.wait(5)
            except (OSError, subprocess.TimeoutExpired):
                pass
            for sig in (signal.SIGTERM, signal.SIGKILL):   # then the whole process group
                try:
                    os.killpg(proc.pid, sig)
                    proc.wait(3)
                except (ProcessLookupError, PermissionError, subprocess.TimeoutExpired):
                    pass
        os.close(cmd_w), os.close(evt_r), errlog.close()
        shutil.rmtree(tmp, ignore_errors=True)
    return code


if __name__ == '__main__':
    sys.exit(main())
