'use strict';

// Helpers for the simulator's own tests (not a test file itself).

const crypto = require('node:crypto');
const http = require('node:http');
const { call, controlResponse } = require('../support/sim-control');

const FORM = 'application/x-www-form-urlencoded';

/**
 * Valid synthetic national identity numbers (month + 80: no person has one) whose digit sum
 * selects each scenario (see README); test/nodes/shared/synthetic-ids.test.ts checks both.
 */
const NATIONAL_IDS = {
	happy: '01817000092',
	rejected: '01817002699',
	'user-timeout': '01817001048',
	'consent-timeout': '01817003997',
	'consent-timeout-data-failed': '01817000688',
	'tax-failed': '01817006287',
	'income-failed': '01817001986',
};
const ORGANIZATION_ID = '923456783';

function basic(id, secret) {
	return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
}

/** Form-encode per RFC 6749 §2.3.1 (application/x-www-form-urlencoded) before Basic encoding. */
function basicRfc6749(id, secret) {
	const enc = (s) => new URLSearchParams({ v: s }).toString().slice(2);
	return basic(enc(id), enc(secret));
}

async function tokenResponse(sim, clientName, { scope, realm, via = 'basic' } = {}) {
	const client = sim.clients[clientName];
	const form = new URLSearchParams({ grant_type: 'client_credentials' });
	if (scope !== undefined) form.set('scope', scope);
	const headers = { 'content-type': FORM };
	if (via === 'basic') headers.authorization = basic(client.clientId, client.clientSecret);
	else {
		form.set('client_id', client.clientId);
		form.set('client_secret', client.clientSecret);
	}
	const tokenUrl = `${sim.authUrl}/realms/${realm || client.realm}/protocol/openid-connect/token`;
	const res = await fetch(tokenUrl, { method: 'POST', headers, body: form.toString() });
	return { res, body: await res.json() };
}

async function token(sim, clientName, options) {
	const { res, body } = await tokenResponse(sim, clientName, options);
	if (res.status !== 200)
		throw new Error(`token request failed: ${res.status} ${JSON.stringify(body)}`);
	return body.access_token;
}

/** A control API call (`/__sim<path>`) as answered: { status, headers, body, text }. */
async function control(sim, path, { method = 'GET', json } = {}) {
	return controlResponse(sim, method, path, json);
}

/** A local webhook receiver recording raw bytes. respond(req, raw) may return { status, body, delayMs }. */
async function startReceiver(respond = () => ({ status: 200, body: 'ok' })) {
	const received = [];
	const server = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', async () => {
			const raw = Buffer.concat(chunks);
			let json = null;
			try {
				json = JSON.parse(raw.toString('utf8'));
			} catch {
				json = null;
			}
			const entry = {
				method: req.method,
				url: req.url,
				headers: req.headers,
				raw,
				json,
				at: Date.now(),
			};
			received.push(entry);
			const answer = respond(req, raw) || {};
			if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
			res.writeHead(answer.status || 200, { 'content-type': 'text/plain' });
			res.end(answer.body ?? 'ok');
		});
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${server.address().port}`;
	return {
		url,
		received,
		forFlow: (flowId) =>
			received.filter((r) => r.json && r.json.payload && r.json.payload.flow === flowId),
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

async function waitFor(predicate, timeoutMs = 5000, stepMs = 10) {
	const end = Date.now() + timeoutMs;
	for (;;) {
		const value = await predicate();
		if (value) return value;
		if (Date.now() > end) throw new Error('waitFor timed out');
		await new Promise((r) => setTimeout(r, stepMs));
	}
}

function hmacHex(secret, raw) {
	return crypto.createHmac('sha256', secret).update(raw).digest('hex');
}

function flowBody(overrides = {}) {
	return {
		nationalId: NATIONAL_IDS.happy,
		lastName: 'Nordmann',
		organizationId: ORGANIZATION_ID,
		redirectUrl: 'https://bank.example/after-consent',
		webhookUrl: 'http://127.0.0.1:9/unused',
		...overrides,
	};
}

/** Check a PDF buffer's structure; returns the list of xref offsets checked. */
function checkPdfStructure(pdf) {
	const text = pdf.toString('latin1');
	const errors = [];
	if (!text.startsWith('%PDF-1.4')) errors.push('header');
	if (!/%%EOF\s*$/.test(text.slice(-64))) errors.push('eof');
	const tail = text.slice(-4096);
	const startxref = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail)?.[1]);
	if (text.slice(startxref, startxref + 4) !== 'xref') errors.push('startxref');
	const xref = /^xref\n0 (\d+)\n([\s\S]*?)trailer/.exec(text.slice(startxref));
	const offsets = [];
	if (!xref) errors.push('xref table');
	else {
		const entries = xref[2].match(/.{20}/gs) || [];
		if (entries.length !== Number(xref[1])) errors.push('xref count');
		entries.slice(1).forEach((entry, i) => {
			const offset = Number(entry.slice(0, 10));
			offsets.push(offset);
			const expected = `${i + 1} 0 obj`;
			if (text.slice(offset, offset + expected.length) !== expected)
				errors.push(`object ${i + 1} offset`);
		});
	}
	if (!/\/Type \/Catalog/.test(text.slice(0, 4096))) errors.push('catalog');
	return { errors, offsets };
}

module.exports = {
	FORM,
	NATIONAL_IDS,
	ORGANIZATION_ID,
	basic,
	basicRfc6749,
	tokenResponse,
	token,
	call,
	control,
	startReceiver,
	waitFor,
	hmacHex,
	flowBody,
	checkPdfStructure,
};
