#!/usr/bin/python3
# gen.py — writes cases.tsv, the cron table tests/unit/cronsuite.c checks.
#
#   /usr/bin/python3 tests/data/cron/gen.py > tests/data/cron/cases.tsv
#
# Needs Debian's python3-croniter (1.3.5 when this table was made).  Each
# line is EXPR <tab> FROM <tab> WANT <tab> SOURCE: the first run of EXPR
# strictly after FROM (UTC, whole minutes), or "invalid" for an expression
# that must be refused.  Expressions are drawn at random (a fixed seed)
# from cron's grammar: "*", N, N-M, steps, lists, month and weekday names in
# any case, 0 and 7 for Sunday, the @aliases.  Every answer is computed
# twice, independently of abx:
#   croniter   croniter(EXPR, FROM).get_next()
#   brute      a day-by-day search over the field sets croniter expands
#              (croniter's reading: a day field that covers its range is
#              unrestricted; both restricted, either matches), 28 years on
# SOURCE says which: "both" when they agree; "brute" when croniter 1.3.5 is
# wrong (it skips 1 March after a leap 28 February for */N in the day of
# month) — the brute force is the answer then; "never" when no time ever
# matches (February 30): such an expression must be refused; "grammar"
# for the fixed list of malformed ones at the end, which must be refused
# too (some croniter takes: "+5", a sign that cron's grammar has not).
import random
import sys
from datetime import datetime, timedelta

from croniter import croniter

R = random.Random(20261201)
MON = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
DOW = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
SPEC = [(0, 59, None), (0, 23, None), (1, 31, None), (1, 12, MON), (0, 7, DOW)]


def name(v, lo, names):
    if names and R.random() < 0.4 and v - lo < len(names):
        n = names[v - lo]
        return R.choice([n, n.upper(), n.capitalize()])
    return str(v)


def item(lo, hi, names):
    r = R.random()
    if r < 0.25:
        return "*"
    if r < 0.35:
        return "*/%d" % R.randint(1, min(hi, 15))
    a = R.randint(lo, hi)
    if r < 0.6:
        return name(a, lo, names)
    b = R.randint(a, hi)
    s = name(a, lo, names) + "-" + name(b, lo, names)
    if r < 0.8:
        return s
    return s + "/%d" % R.randint(1, min(hi, 10))


def field(i):
    lo, hi, names = SPEC[i]
    if i == 4 and names and R.random() < 0.1:
        hi = 6 if R.random() < 0.5 else 7
    n = 1 if R.random() < 0.7 else R.randint(2, 3)
    items = [item(lo, hi, names) for _ in range(n)]
    if "*" in items and n > 1:
        items = [x for x in items if x != "*"] or ["*"]
    return ",".join(items)


def expression():
    if R.random() < 0.03:
        return R.choice(["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly",
                         "@DAILY", "@Hourly"])
    f = [field(i) for i in range(5)]
    # lean towards firing less often than every minute, with day fields set
    if R.random() < 0.7:
        f[0] = str(R.randint(0, 59))
    if R.random() < 0.5:
        f[1] = str(R.randint(0, 23))
    return " ".join(f)


def start():
    if R.random() < 0.2:   # near a leap February's end
        y = R.choice([2024, 2028, 2032, 2096, 2100, 2104])
        d = datetime(y, 2, R.choice([27, 28, 28, 29 if y % 4 == 0 and y != 2100 else 28]), R.randint(0, 23),
                     R.randint(0, 59))
        return d
    return datetime(2000, 1, 1) + timedelta(minutes=R.randint(0, 99 * 366 * 1440))


def brute(expr, t):
    c = croniter(expr, t)
    m, h, dom, mon, dow = c.expanded[:5]
    dom_star, dow_star = dom == ["*"], dow == ["*"]
    sets = [set(range(60)) if m == ["*"] else set(m), set(range(24)) if h == ["*"] else set(h),
            set(dom) if not dom_star else None, set(range(1, 13)) if mon == ["*"] else set(mon),
            set(x % 7 for x in dow) if not dow_star else None]
    day = datetime(t.year, t.month, t.day)
    for _ in range(28 * 366 + 2):
        if day.month in sets[3]:
            dm = dom_star or day.day in sets[2]
            dw = dow_star or (day.isoweekday() % 7) in sets[4]
            hit = dm and dw if (dom_star or dow_star) else dm or dw
            if hit:
                for hh in sorted(sets[1]):
                    for mm in sorted(sets[0]):
                        cand = day.replace(hour=hh, minute=mm)
                        if cand > t:
                            return cand
        day += timedelta(days=1)
    return None


def main():
    seen = set()
    out = sys.stdout
    n = 0
    while n < 2000:
        e = expression()
        t = start()
        if (e, t) in seen:
            continue
        seen.add((e, t))
        try:
            b = brute(e, t)
        except Exception:   # croniter refuses it: not in the table
            continue
        try:
            c = croniter(e, t).get_next(datetime)
        except Exception:
            c = None
        if b is None:
            want, src = "invalid", "never"
        else:
            want = b.strftime("%Y-%m-%dT%H:%M:00Z")
            src = "both" if c == b else "brute"
        out.write("%s\t%s\t%s\t%s\n" % (e, t.strftime("%Y-%m-%dT%H:%M:00Z"), want, src))
        n += 1
    for e in NEVER:
        assert brute(e, datetime(2030, 1, 1)) is None, e   # checked, not assumed
        out.write("%s\t2030-01-01T00:00:00Z\tinvalid\tnever\n" % e)
    for e in MALFORMED:
        out.write("%s\t2030-01-01T00:00:00Z\tinvalid\tgrammar\n" % e)


NEVER = ["0 0 30 2 *", "0 0 31 2 *", "0 0 31 4 *", "0 0 31 6 *", "0 0 31 9 *", "0 0 31 11 *",
         "0 0 30-31 feb *", "0 0 31 apr,jun,sep,nov *", "0 0 31 4-11/5 *", "15 10 31 2,4 *"]
MALFORMED = ["+5 * * * *", "* +5 * * *", "@reboot", "@REBOOT", "* * * * * *", "* * * *", "60 * * * *",
             "* 24 * * *", "* * 0 * *", "* * * 13 *", "* * * * 8", "*/0 * * * *", "5-1 * * * *",
             "* * * jan-dec-1 *", "* * * * monday", "* * * * mo", "* jan * * *", "1-5-7 * * * *",
             "L * * * *", "* * L * *", "* * * * 5#2", "* * 15W * *", "? * * * *", "0 0 * * ?",
             "1~5 * * * *", ", * * * *", "1,,2 * * * *", "*/ * * * *", "-1 * * * *", "0x5 * * * *",
             "@every", "@fortnightly", ""]


main()
