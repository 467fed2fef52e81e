'use strict';

// The one HTTP client for the simulator's control API (/__sim, see test/simulator/README.md),
// shared by the node tests (test/support/simulator.ts) and the simulator's own tests
// (test/simulator/helpers.js).

/** fetch + body: { status, headers, body (parsed JSON when possible), text }. */
async function call(url, { method = 'GET', token: bearer, headers = {}, json, body } = {}) {
	const h = { ...headers };
	if (bearer) h.authorization = `Bearer ${bearer}`;
	let payload = body;
	if (json !== undefined) {
		h['content-type'] = h['content-type'] || 'application/json';
		payload = JSON.stringify(json);
	}
	const res = await fetch(url, { method, headers: h, body: payload });
	const text = await res.text();
	let parsed = null;
	try {
		parsed = text ? JSON.parse(text) : null;
	} catch {
		parsed = null;
	}
	return { status: res.status, headers: res.headers, body: parsed, text };
}

/** A control API call as the simulator answers it, error statuses included. */
async function controlResponse(sim, method, path, body) {
	return call(`${sim.url}/__sim${path}`, { method, json: body });
}

/** A control API call that must succeed: its parsed answer; an error status throws. */
async function control(sim, method, path, body) {
	const response = await controlResponse(sim, method, path, body);
	if (response.status >= 400) {
		throw new Error(`simulator control ${method} ${path}: ${response.status} ${response.text}`);
	}
	return response.body;
}

module.exports = { call, controlResponse, control };
