'use strict';

// Fault "truncate": an answer cut short. The answer goes out without Content-Length and only the first
// floor(fraction × length) body bytes are sent.
//   default: no Transfer-Encoding either, so the body is delimited by closing the connection
//            (RFC 9112 §6.3 item 8); the connection is closed cleanly after the cut, and a client cannot
//            tell the short body from a complete one. Only the content can show it.
//   chunked: Transfer-Encoding: chunked and the socket is destroyed before the last chunk; HTTP
//            clients notice that (undici "other side closed", node:http "aborted").
// It needs the handler to set Content-Length in writeHead, which every simulator answer does.

/** Wraps res so that the answer written to it is truncated; call before anything is written. */
function truncateResponse(res, fraction, { chunked = false } = {}) {
	const { writeHead, write, end } = res;
	let limit = Infinity;
	let sent = 0;
	let cut = false;

	res.writeHead = function truncatedWriteHead(statusCode, ...args) {
		const message = typeof args[0] === 'string' ? args.shift() : undefined;
		const headers = args[0];
		if (headers && typeof headers === 'object' && !Array.isArray(headers)) {
			for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
		}
		const length = Number(res.getHeader('content-length'));
		if (Number.isFinite(length)) limit = Math.floor(length * fraction);
		res.removeHeader('content-length');
		if (!chunked) {
			res.useChunkedEncodingByDefault = false;
			res.setHeader('connection', 'close');
		}
		return message === undefined
			? writeHead.call(res, statusCode)
			: writeHead.call(res, statusCode, message);
	};

	/** The part of chunk that still fits under the limit. */
	function fit(chunk, encoding) {
		if (chunk === undefined || chunk === null || typeof chunk === 'function')
			return Buffer.alloc(0);
		const buffer = Buffer.isBuffer(chunk)
			? chunk
			: Buffer.from(chunk, typeof encoding === 'string' ? encoding : 'utf8');
		const room = Math.max(0, limit - sent);
		const part = buffer.length > room ? buffer.subarray(0, room) : buffer;
		sent += part.length;
		return part;
	}

	function cutHere(part) {
		cut = true;
		if (!res.headersSent) res.writeHead(res.statusCode);
		if (!chunked) {
			end.call(res, part); // Connection: close — the server closes the socket after this
			return;
		}
		const destroy = () => res.socket?.destroy();
		if (part.length > 0) write.call(res, part, destroy);
		else {
			res.flushHeaders();
			setImmediate(destroy);
		}
	}

	res.write = function truncatedWrite(chunk, encoding, callback) {
		if (cut) return true; // dropped; the handler sees res ended or destroyed soon
		if (!res.headersSent) res.writeHead(res.statusCode);
		const part = fit(chunk, encoding);
		if (sent >= limit) {
			cutHere(part);
			return true;
		}
		return write.call(res, part, typeof encoding === 'function' ? encoding : callback);
	};

	res.end = function truncatedEnd(chunk, encoding) {
		if (cut) return res;
		if (!res.headersSent) res.writeHead(res.statusCode);
		cutHere(fit(chunk, encoding));
		return res;
	};
}

module.exports = { truncateResponse };
