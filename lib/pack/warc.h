/*
 * warc.h — reading a WARC file (ISO 28500, WARC/1.0 and 1.1) record by
 * record, as a WACZ needs it: where each record lies, compressed, and what
 * a replay index says of it.
 *
 * warc_scan() reads the WARC on fd from its start, gzip-compressed (one or
 * more members; recognised by the gzip magic) or plain, and calls fn once
 * for each whole record, in order, with:
 *   off, len   the record's bytes in the file a reader will seek in: the
 *              gzip member holding it;
 *   type       WARC-Type (response, request, warcinfo, ...);
 *   uri        WARC-Target-URI, without the angle brackets wget puts
 *              around it ("" if none);
 *   date       WARC-Date;
 *   digest     WARC-Payload-Digest ("" if none);
 *   mime       for an application/http response or revisit, the HTTP
 *              Content-Type without parameters; else the record's
 *              Content-Type;
 *   status     the HTTP status code of a response or revisit, else 0.
 *
 * Two modes:
 *   out < 0    the file is used as it is, which is possible only if every
 *              record is exactly one gzip member ("per-record" gzip, as
 *              wget, warcio and Heritrix write it): each record's member
 *              must begin and end with it.  If one is not, or the file is
 *              plain, warc_scan stops and returns WARC_NOTALIGNED (fn may
 *              have been called for the records before: the caller starts
 *              again in the other mode).
 *   out >= 0   the records are written again to out, each gzip-compressed
 *              into a member of its own (the offsets are then out's).
 *              Whole records only: the damaged tail of a file cut short is
 *              left out.
 * fn returns 0 to go on, anything else to stop (warc_scan returns it).
 *
 * Returns WARC_OK (records, if any, all read), WARC_DAMAGED (a record
 * could not be read: a truncated gzip member, a missing Content-Length, a
 * file cut short; the whole records before it were given to fn, and
 * *good_end, if not NULL, is where they end), WARC_NOTALIGNED, or
 * WARC_IOERR (errno set: ENOMEM if zlib could not set up its stream).
 * It never ends the process.  Header lines are limited to 1 MB a record.
 */
#ifndef ABX_WARC_H
#define ABX_WARC_H

#include <stdint.h>

enum { WARC_OK = 0, WARC_DAMAGED = -1, WARC_NOTALIGNED = -2, WARC_IOERR = -3 };

typedef struct {
	int64_t off, len;
	const char *type, *uri, *date, *digest, *mime;
	int status;
} warc_rec_t;

typedef int (*warc_rec_fn)(const warc_rec_t *r, void *arg);

int warc_scan(int fd, int out, warc_rec_fn fn, void *arg, int64_t *good_end);

#endif
