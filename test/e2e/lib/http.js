'use strict';
// A small HTTP client on node:http (no fetch: behaves the same under jest on any Node).
const http = require('node:http');
const https = require('node:https');

/**
 * request(method, url, { headers, json, body, timeoutMs }) →
 * { status, headers, text, json (parsed or undefined), setCookies }
 */
function request(method, url, { headers = {}, json, body, timeoutMs = 60000 } = {}) {
	return new Promise((resolve, reject) => {
		const u = new URL(url);
		const h = { ...headers };
		let payload = body;
		if (json !== undefined) {
			payload = JSON.stringify(json);
			h['content-type'] = h['content-type'] || 'application/json';
		}
		if (payload !== undefined && payload !== null) h['content-length'] = Buffer.byteLength(payload);
		const lib = u.protocol === 'https:' ? https : http;
		const req = lib.request(u, { method, headers: h, agent: false }, (res) => {
			const chunks = [];
			res.on('data', (c) => chunks.push(c));
			res.on('end', () => {
				const text = Buffer.concat(chunks).toString('utf8');
				let parsed;
				try {
					parsed = text ? JSON.parse(text) : undefined;
				} catch {}
				const sc = res.headers['set-cookie'] || [];
				resolve({
					status: res.statusCode,
					headers: res.headers,
					text,
					json: parsed,
					setCookies: sc,
				});
			});
			res.on('error', reject);
		});
		req.setTimeout(timeoutMs, () =>
			req.destroy(new Error(`timeout after ${timeoutMs} ms: ${method} ${url}`)),
		);
		req.on('error', reject);
		if (payload !== undefined && payload !== null) req.write(payload);
		req.end();
	});
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls fn until it returns a truthy value; throws with the last value/error after timeoutMs (at once for an error with `fatal`). */
async function waitFor(fn, { timeoutMs = 30000, intervalMs = 250, what = 'condition' } = {}) {
	const until = Date.now() + timeoutMs;
	let last;
	for (;;) {
		try {
			const v = await fn();
			if (v) return v;
			last = v;
		} catch (e) {
			if (e && e.fatal) throw e;
			last = e;
		}
		if (Date.now() > until) {
			const detail = last instanceof Error ? last.message : JSON.stringify(last);
			throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${detail})`);
		}
		await sleep(intervalMs);
	}
}

module.exports = { request, sleep, waitFor };
