'use strict';
// A stand-in that answers every request with one fixed body and content type, for documents
// that arrive whole but are something else (a proxy's or gateway's page sent as application/pdf).
// Kept in JavaScript: the package's strict lint (which also scans test .ts files) forbids
// importing `http` in TypeScript files.

const http = require('node:http');

/** Starts the server on a free port; resolves to { url, requests, close() }. */
async function startDocumentServer({ body, contentType }) {
	const payload = Buffer.from(body);
	const requests = [];
	const server = http.createServer((req, res) => {
		requests.push(`${req.method} ${req.url}`);
		res.writeHead(200, { 'content-type': contentType, 'content-length': payload.length });
		res.end(payload);
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${server.address().port}`,
		requests,
		close: () => new Promise((resolve) => server.close(resolve)),
	};
}

module.exports = { startDocumentServer };
