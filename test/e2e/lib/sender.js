'use strict';
// A load sender for webhook deliveries that behaves like the sending service: each delivery goes
// to one of several URLs (round robin), anything that is not 2xx is retried with exponential
// backoff (HTTP errors on the same URL, connection errors — refused, reset, timeout — on the next
// URL), over node:http keep-alive agents with a fixed number of deliveries in flight.
// sendSimultaneous() sends the same bytes to several URLs at the same moment.
const http = require('node:http');
const net = require('node:net');
const { performance } = require('node:perf_hooks');
const { sleep } = require('./http');

/** Nearest-rank percentile (p in 0..100) of numbers; undefined for none. */
function percentile(values, p) {
	if (!values.length) return undefined;
	const sorted = [...values].sort((a, b) => a - b);
	const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
	return sorted[rank - 1];
}

/** A seeded PRNG (mulberry32): the same seed, the same hang-ups. */
function seeded(seed) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** One HTTP request on `agent`: { status, body } or { error } (code or message); hangUpMs: the sender gives up then. */
function attempt(url, { body, headers, agent, timeoutMs, hangUpMs }) {
	return new Promise((resolve) => {
		let settled = false;
		const done = (v) => {
			if (!settled) {
				settled = true;
				resolve(v);
			}
		};
		const payload = Buffer.isBuffer(body)
			? body
			: Buffer.from(body === undefined ? '' : String(body));
		const req = http.request(
			url,
			{ method: 'POST', agent, headers: { ...headers, 'content-length': payload.length } },
			(res) => {
				const chunks = [];
				res.on('data', (c) => chunks.push(c));
				res.on('end', () =>
					done({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }),
				);
				res.on('error', (e) => done({ error: e.code || e.message }));
			},
		);
		req.setTimeout(timeoutMs, () =>
			req.destroy(Object.assign(new Error(`timeout after ${timeoutMs} ms`), { code: 'ETIMEDOUT' })),
		);
		req.on('error', (e) => done({ error: e.code || e.message }));
		req.end(payload, () => {
			if (hangUpMs === undefined) return;
			setTimeout(() => {
				if (settled) return;
				done({ error: 'hung-up' });
				req.destroy();
			}, hangUpMs);
		});
	});
}

/**
 * Sends every delivery ({ body: Buffer|string, headers, id? }) as a POST to one of `urls`.
 * Options: concurrency (deliveries in flight, 16), retry { maxAttempts (8), backoffMs (100: the
 * wait before attempt k+1 is backoffMs·factor^(k-1), at most maxBackoffMs), factor (2),
 * maxBackoffMs (5000) }, spread ('round-robin': delivery i starts on urls[i % n]; 'first': all
 * start on urls[0]), timeoutMs per attempt (30000).
 * Returns { records, totals }:
 *  records[i] = { index, id, attempts: [{ url, at (epoch ms), ms (since the send started),
 *    durationMs, status | error }], status (final HTTP status or null), error (last error),
 *    ok (answered 2xx), ackMs (first attempt → 2xx answer), ackAt (epoch ms of the 2xx answer),
 *    answeredBy (URL that answered 2xx), response (body of the last answer, ≤ 500 chars) }
 *  totals = { deliveries, answered2xx, gaveUp, attempts, retried, durationMs, deliveriesPerSecond,
 *    ackP50Ms, ackP99Ms, byUrl: { url: 2xx answers } }
 * hangUps { share, maxMs, seed }: that share of attempts hangs up a random 0..maxMs after sending
 * (as a proxy's time-out would), recorded as the error 'hung-up' and retried like any other.
 */
async function send({
	urls,
	deliveries,
	concurrency = 16,
	retry = {},
	spread = 'round-robin',
	timeoutMs = 30000,
	hangUps,
}) {
	const random = hangUps ? seeded(hangUps.seed ?? 41) : null;
	const hangUpMs = () =>
		random !== null && random() < hangUps.share
			? Math.floor(random() * (hangUps.maxMs + 1))
			: undefined;
	if (!urls || !urls.length) throw new Error('send: no urls');
	const { maxAttempts = 8, backoffMs = 100, factor = 2, maxBackoffMs = 5000 } = retry;
	const agents = new Map();
	const agentFor = (url) => {
		const origin = new URL(url).origin;
		if (!agents.has(origin))
			agents.set(origin, new http.Agent({ keepAlive: true, maxSockets: concurrency }));
		return agents.get(origin);
	};
	const t0 = performance.now();
	const records = deliveries.map((d, index) => ({
		index,
		id: d.id,
		attempts: [],
		status: null,
		error: null,
		ok: false,
		ackMs: null,
		ackAt: null,
		answeredBy: null,
		response: null,
	}));
	let next = 0;
	const worker = async () => {
		while (next < deliveries.length) {
			const i = next++;
			const d = deliveries[i];
			const rec = records[i];
			let u = spread === 'first' ? 0 : i % urls.length;
			let firstStart;
			for (let k = 1; k <= maxAttempts; k++) {
				const at = Date.now();
				const startedAt = performance.now();
				if (k === 1) firstStart = startedAt;
				const url = urls[u];
				const r = await attempt(url, {
					body: d.body,
					headers: d.headers || {},
					agent: agentFor(url),
					timeoutMs,
					hangUpMs: hangUpMs(),
				});
				const now = performance.now();
				const a = { url, at, ms: Math.round(startedAt - t0), durationMs: now - startedAt };
				if (r.error) a.error = r.error;
				else a.status = r.status;
				rec.attempts.push(a);
				rec.status = r.error ? null : r.status;
				rec.error = r.error || null;
				if (!r.error) rec.response = r.body.slice(0, 500);
				if (!r.error && r.status >= 200 && r.status < 300) {
					rec.ok = true;
					rec.ackMs = now - firstStart;
					rec.ackAt = Date.now();
					rec.answeredBy = url;
					break;
				}
				if (r.error) u = (u + 1) % urls.length; // connection trouble: the next URL
				if (k < maxAttempts) await sleep(Math.min(maxBackoffMs, backoffMs * factor ** (k - 1)));
			}
		}
	};
	try {
		await Promise.all(Array.from({ length: Math.min(concurrency, deliveries.length) }, worker));
	} finally {
		for (const a of agents.values()) a.destroy();
	}
	const durationMs = performance.now() - t0;
	const ok = records.filter((r) => r.ok);
	const acks = ok.map((r) => r.ackMs);
	const byUrl = Object.fromEntries(urls.map((u) => [u, 0]));
	for (const r of ok) byUrl[r.answeredBy]++;
	const attempts = records.reduce((s, r) => s + r.attempts.length, 0);
	const totals = {
		deliveries: records.length,
		answered2xx: ok.length,
		gaveUp: records.length - ok.length,
		attempts,
		retried: records.filter((r) => r.attempts.length > 1).length,
		durationMs,
		deliveriesPerSecond: ok.length / (durationMs / 1000),
		ackP50Ms: percentile(acks, 50),
		ackP99Ms: percentile(acks, 99),
		byUrl,
	};
	return { records, totals };
}

/** Parses a raw HTTP/1.1 response (Connection: close): { status, headers, body }. */
function parseRawResponse(raw) {
	const end = raw.indexOf('\r\n\r\n');
	if (end < 0)
		throw new Error(`incomplete HTTP response: ${JSON.stringify(raw.slice(0, 200).toString())}`);
	const [statusLine, ...lines] = raw.slice(0, end).toString('latin1').split('\r\n');
	const status = Number(statusLine.split(' ')[1]);
	const headers = {};
	for (const l of lines) {
		const c = l.indexOf(':');
		headers[l.slice(0, c).trim().toLowerCase()] = l.slice(c + 1).trim();
	}
	let body = raw.slice(end + 4);
	if (/chunked/i.test(headers['transfer-encoding'] || '')) {
		const parts = [];
		let i = 0;
		for (;;) {
			const nl = body.indexOf('\r\n', i);
			const size = parseInt(body.slice(i, nl).toString('latin1'), 16);
			if (!size) break;
			parts.push(body.slice(nl + 2, nl + 2 + size));
			i = nl + 2 + size + 2;
		}
		body = Buffer.concat(parts);
	}
	return { status, headers, body: body.toString('utf8') };
}

/**
 * Sends the same delivery ({ body, headers }) as a POST to every URL at the same moment: opens one
 * connection per URL first, then writes every request in the same tick. Returns per URL
 * { url, status, headers, body, writtenAt (epoch ms), answeredMs (after the write) } or { url, error }.
 */
async function sendSimultaneous(urls, delivery, { timeoutMs = 30000 } = {}) {
	const payload = Buffer.isBuffer(delivery.body)
		? delivery.body
		: Buffer.from(String(delivery.body));
	const opened = await Promise.allSettled(
		urls.map(
			(url) =>
				new Promise((resolve, reject) => {
					const u = new URL(url);
					const sock = net.connect(Number(u.port || 80), u.hostname);
					sock.setNoDelay(true);
					sock.once('connect', () => resolve({ url, u, sock }));
					sock.once('error', reject);
				}),
		),
	);
	const refused = opened.find((o) => o.status === 'rejected');
	if (refused) {
		for (const o of opened) if (o.status === 'fulfilled') o.value.sock.destroy();
		throw refused.reason;
	}
	const conns = opened.map((o) => o.value);
	const answers = conns.map(
		({ url, sock }) =>
			new Promise((resolve) => {
				const chunks = [];
				const timer = setTimeout(
					() => sock.destroy(new Error(`timeout after ${timeoutMs} ms`)),
					timeoutMs,
				);
				sock.on('data', (c) => chunks.push(c));
				sock.on('error', (e) => {
					clearTimeout(timer);
					resolve({ url, error: e.code || e.message });
				});
				sock.on('close', () => {
					clearTimeout(timer);
					const answeredMs = performance.now();
					try {
						resolve({
							url,
							...parseRawResponse(Buffer.concat(chunks)),
							answeredAtPerf: answeredMs,
						});
					} catch (e) {
						resolve({ url, error: e.message });
					}
				});
			}),
	);
	const requests = conns.map(({ u }) => {
		const headers = {
			...(delivery.headers || {}),
			host: u.host,
			'content-length': String(payload.length),
			connection: 'close',
		};
		const head = [
			`POST ${u.pathname}${u.search} HTTP/1.1`,
			...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
			'',
			'',
		].join('\r\n');
		return Buffer.concat([Buffer.from(head, 'latin1'), payload]);
	});
	const writtenAt = Date.now();
	const writtenPerf = performance.now();
	conns.forEach(({ sock }, k) => sock.write(requests[k]));
	const results = await Promise.all(answers);
	return results.map(({ answeredAtPerf, ...r }) =>
		r.error ? { ...r, writtenAt } : { ...r, writtenAt, answeredMs: answeredAtPerf - writtenPerf },
	);
}

module.exports = { send, sendSimultaneous, percentile, parseRawResponse };
