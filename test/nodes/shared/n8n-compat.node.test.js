'use strict';
// nodes/shared/n8n-compat.ts against parts of n8n and Node that the package's lint keeps out of
// TypeScript files: @n8n/client-oauth2's own error texts (the table n8n's OAuth2 client reports a
// token endpoint's refusal with) and a real net.Server for the closing-server check.
const { createServer, connect } = require('node:net');
const { ERROR_RESPONSES } = require('@n8n/client-oauth2/dist/constants');
const {
	mentionsTokenFailure,
	oauthErrorFromText,
	serverClosing,
	tokenFailureReason,
} = require('../../../nodes/shared/n8n-compat');

describe("n8n's OAuth2 client", () => {
	test.each([
		'invalid_client',
		'invalid_scope',
		'invalid_grant',
		'unauthorized_client',
		'unsupported_grant_type',
		'invalid_request',
	])("%s: @n8n/client-oauth2 text behind n8n's prefix maps back to the code", (code) => {
		const text = `Failed to acquire OAuth2 access token: ${ERROR_RESPONSES[code]}`;
		expect(oauthErrorFromText([text])).toBe(code);
		expect(oauthErrorFromText([undefined, 42, text])).toBe(code);
		expect(tokenFailureReason(text)).toBe(ERROR_RESPONSES[code]);
		expect(mentionsTokenFailure([text])).toBe(true);
	});
});

describe('the request', () => {
	test('closing server: a real net.Server after close() while a connection stays open', async () => {
		const sockets = [];
		const server = createServer((socket) => sockets.push(socket));
		await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
		const { port } = server.address();
		const client = connect(port, '127.0.0.1');
		await new Promise((resolve) => client.once('connect', resolve));
		await new Promise((resolve) => setImmediate(resolve));
		expect(serverClosing({ socket: sockets[0] })).toBe(false);
		const closed = new Promise((resolve) => server.close(resolve));
		expect(serverClosing({ socket: sockets[0] })).toBe(true);
		client.destroy();
		await closed;
		expect(serverClosing({})).toBe(false);
		expect(serverClosing(null)).toBe(false);
	});
});
