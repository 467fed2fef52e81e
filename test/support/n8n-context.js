'use strict';

// A small IExecuteFunctions for benchmarks that uses n8n's own machinery where it matters:
//  - HTTP: n8n's OutboundHttp (@n8n/backend-network, axios; what httpRequestWithAuthentication
//    ends in), with a client-credentials token fetched once and cached like n8n's stored token;
//    failures are wrapped in NodeApiError like n8n does;
//  - binary data: n8n-core's real prepareBinaryData + BinaryDataService, in 'filesystem' mode
//    (n8n's default outside queue mode: the stream is written to disk) or in 'memory' mode (no
//    manager: n8n buffers the whole file and keeps it base64 in the item).
// n8n-core's own copies of its dependencies are used (resolved from n8n-core's folder).

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

// n8n-core writes an instance config into N8N_USER_FOLDER (default ~/.n8n): keep it in a temp dir.
if (!process.env.N8N_USER_FOLDER) {
	process.env.N8N_USER_FOLDER = path.join(os.tmpdir(), 'n8n-nodes-sbl-bench-user');
	fs.mkdirSync(process.env.N8N_USER_FOLDER, { recursive: true });
}

const coreDir = path.dirname(require.resolve('n8n-core/package.json'));
const fromCore = (name) => require(require.resolve(name, { paths: [coreDir] }));
const core = require('n8n-core');
const { Container } = fromCore('@n8n/di');
const { OutboundHttp } = fromCore('@n8n/backend-network');
const { NodeApiError } = require('n8n-workflow');
const { prepareBinaryData } = require(
	path.join(
		coreDir,
		'dist/execution-engine/node-execution-context/utils/binary-helper-functions.js',
	),
);

const quietLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** Sets up n8n-core's BinaryDataService. mode: 'filesystem' | 'memory'. Returns the storage dir. */
async function initBinaryData(mode) {
	const storagePath = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-binary-data-'));
	const service = new core.BinaryDataService(
		{
			mode: mode === 'filesystem' ? 'filesystem' : 'default',
			localStoragePath: storagePath,
			signingSecret: 'bench',
		},
		{ error: (error) => console.error('binary data error:', error) },
		quietLogger,
	);
	if (mode === 'filesystem') await service.init(); // registers the filesystem manager
	Container.set(core.BinaryDataService, service);
	return storagePath;
}

function getPath(object, dotted) {
	return dotted
		.split('.')
		.reduce(
			(value, key) => (value === null || value === undefined ? undefined : value[key]),
			object,
		);
}

/**
 * @param {object} options
 * @param {object|object[]} options.parameters node parameters (one object, or one per item)
 * @param {number} options.itemCount
 * @param {object} options.credentials credential data by type
 * @param {{token?: string}} [options.tokenCache] shared across contexts (n8n keeps the token)
 */
function createBenchContext({ parameters, itemCount, credentials, tokenCache = {} }) {
	const http = Container.get(OutboundHttp);
	const node = {
		id: 'bench',
		name: 'Real Estate Estimate',
		type: 'n8n-nodes-sbl.realEstateEstimate',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { realEstateEstimateOAuth2Api: { id: 'bench-cred', name: 'bench' } },
	};
	const items = Array.from({ length: itemCount }, (_, index) => ({ json: { index } }));
	const paramsFor = (index) => (Array.isArray(parameters) ? parameters[index] : parameters);

	async function fetchToken(data) {
		const form = new URLSearchParams({ grant_type: 'client_credentials' });
		if (data.scope) form.set('scope', data.scope);
		const response = await fetch(data.accessTokenUrl, {
			method: 'POST',
			headers: {
				'content-type': 'application/x-www-form-urlencoded',
				authorization: `Basic ${Buffer.from(`${data.clientId}:${data.clientSecret}`).toString('base64')}`,
			},
			body: form.toString(),
		});
		const json = await response.json();
		if (!response.ok || typeof json.access_token !== 'string') {
			throw new Error(
				`Failed to acquire OAuth2 access token: ${json.error_description ?? json.error ?? response.status}`,
			);
		}
		return json.access_token;
	}

	return {
		getInputData: () => items,
		getNode: () => node,
		continueOnFail: () => false,
		getMode: () => 'manual',
		getExecutionCancelSignal: () => undefined,
		getCredentials: async (type) => credentials[type],
		getNodeParameter(name, itemIndex, fallback) {
			const value = getPath(paramsFor(itemIndex), name);
			if (value === undefined) {
				if (arguments.length >= 3) return fallback;
				throw new Error(`parameter ${name} not set`);
			}
			return value;
		},
		logger: quietLogger,
		helpers: {
			async httpRequestWithAuthentication(type, requestOptions) {
				try {
					tokenCache.token ??= fetchToken(credentials[type]);
					const token = await tokenCache.token;
					const options = {
						...requestOptions,
						headers: { ...(requestOptions.headers ?? {}), Authorization: `Bearer ${token}` },
					};
					return await http.requests().request(options);
				} catch (error) {
					throw new NodeApiError(node, error);
				}
			},
			prepareBinaryData: async (data, fileName, mimeType) =>
				await prepareBinaryData(data, 'bench-execution', 'bench-workflow', fileName, mimeType),
			// what n8n-core's getBinaryHelperFunctions(...).getBinaryStream does
			getBinaryStream: async (binaryDataId, chunkSize) =>
				await Container.get(core.BinaryDataService).getAsStream(binaryDataId, chunkSize),
		},
	};
}

/** The bytes n8n-core stored for a binary in filesystem mode. */
function readStoredBinary(storagePath, binary) {
	return fs.readFileSync(path.join(storagePath, String(binary.id).split(':')[1]));
}

function removeBinaryData(storagePath) {
	fs.rmSync(storagePath, { recursive: true, force: true });
}

module.exports = { createBenchContext, initBinaryData, readStoredBinary, removeBinaryData };
