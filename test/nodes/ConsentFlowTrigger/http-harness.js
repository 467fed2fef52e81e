'use strict';
// A stand-in for n8n's production webhook path, over real HTTP, for the Consent Flow Trigger.
//
// A local `http` server reads the raw request bytes, builds a minimal IWebhookFunctions-like
// context around the node, calls `webhook()` and then does what n8n 2.41.1 does with the
// result (packages/cli: webhooks/live-webhooks.js, webhooks/webhook-helpers.js executeWebhook,
// workflow-runner.js run):
//
//   - static data is loaded from the "database" (a JSON string, or null for a new workflow)
//     for every request and wrapped by a real n8n-workflow `Workflow` (ObservableObject);
//   - `getWorkflowStaticData(type)` is `workflow.getStaticData(type, node)`, as in n8n-core;
//   - `noWebhookResponse: true` → the node answered; n8n's response callback runs at once and
//     saves static data if `workflow.staticData.__dataChanged`;
//   - mode 'manual' (a test URL, "Listen for test event"): `getMode()` is 'manual' and static
//     data is never saved;
//   - no `workflowData` → n8n answers `webhookResponse` (or its default) and saves likewise;
//   - `workflowData` without `noWebhookResponse` → WorkflowRunner.run first builds another
//     `Workflow` over the same raw static data object (establishContextForPersistence), which
//     resets the change flag, then the deferred onReceived answer is sent and the callback
//     saves — i.e. nothing, unless the stored static data was null (first write).
//
// Kept in JavaScript: the package's strict lint (which also scans test .ts files) forbids
// importing `http` and using `process` in TypeScript files.

const crypto = require('node:crypto');
const http = require('node:http');
const { NodeHelpers, Workflow, resolveWebhookDescriptionField } = require('n8n-workflow');

const CREDENTIAL_TYPE = 'consentFlowWebhookSigningApi';

/** The "database row" of one workflow: static data as stored JSON (null = never written). */
function createDatabase(initial = null) {
	return {
		staticData: initial === null ? null : JSON.stringify(initial),
		writes: 0,
		read() {
			return this.staticData === null ? null : JSON.parse(this.staticData);
		},
	};
}

// Like express: send() and json() end through the response object's own end(), which a node may
// wrap (n8n-compat.ts whenAnswered); n8n ends the response also after the sender hung up.
function expressLikeResponse(res) {
	const wrapper = {
		status(code) {
			res.statusCode = code;
			return wrapper;
		},
		setHeader(name, value) {
			res.setHeader(name, value);
			return wrapper;
		},
		send(body) {
			if (typeof body === 'object' && body !== null && !Buffer.isBuffer(body)) {
				return wrapper.json(body);
			}
			if (!res.headersSent && !res.hasHeader('content-type'))
				res.setHeader('content-type', 'text/html; charset=utf-8');
			return wrapper.end(body);
		},
		json(body) {
			if (!res.headersSent) res.setHeader('content-type', 'application/json; charset=utf-8');
			return wrapper.end(JSON.stringify(body));
		},
		end(body) {
			if (!res.writableEnded) res.end(body);
			return wrapper;
		},
		get headersSent() {
			return res.headersSent;
		},
		get statusCode() {
			return res.statusCode;
		},
		get writableFinished() {
			return res.writableFinished;
		},
		get writableEnded() {
			return res.writableEnded;
		},
		once(event, listener) {
			res.once(event, listener);
			return wrapper;
		},
	};
	return wrapper;
}

function returnJsonArray(data) {
	const list = Array.isArray(data) ? data : [data];
	return list.map((json) => ({ json }));
}

/**
 * Starts a harness. Options:
 *   createNode(): a new node instance (called per request, like n8n's node loader on restart)
 *   parameters: node parameters (defaults are filled in from the description by n8n-workflow)
 *   typeVersion: the node's version (default 1, what saved workflows of before 1.1 hold)
 *   credentials: the decrypted credential data, or null for "no credential configured"
 *   db: a database from createDatabase() (shared between harnesses to simulate a restart)
 *   provideRawBody: false → `rawBody` is undefined until `await req.readRawBody()`
 *   mode: 'webhook' (Production URL, default) or 'manual' (test URL)
 *   failWorkflow(outputs): true → the run counts as failed (for "When the Workflow Finishes")
 *   deferExecutions: answer (Immediately) before running the execution; drain() runs them
 *   storeFails(): true → n8n cannot store the execution (answers 500, nothing runs)
 *   n8nMajor: 2 (default, n8n 2.41: native resolvers) or 1 (templates evaluated)
 *   beforeStore(delivery): awaited where WorkflowRunner.run() stores the execution
 *   credentialReadMs: how long the webhook's getCredentials takes (default 0)
 */
/** The n8n major the harness follows unless told: SBL_HARNESS_N8N=1 runs every harness test as n8n 1.x. */
function harnessMajor() {
	return Number(process.env.SBL_HARNESS_N8N) === 1 ? 1 : 2;
}

async function startHarness(options) {
	const {
		createNode,
		// Keep Everything unless a test sets it (undefined: n8n's default, Mask): most tests compare
		// items with what was sent; minimise.integration.test.ts covers the setting
		parameters: given = {},
		credentials: initialCredentials = null,
		db = createDatabase(),
		provideRawBody = true,
		nodeName = 'Consent Flow Trigger',
		typeVersion = 1,
		mode = 'webhook',
		failWorkflow,
		deferExecutions = false,
		storeFails,
		n8nMajor = harnessMajor(),
		beforeStore,
		credentialReadMs = 0,
	} = options;
	const parameters = { minimisePersonalData: 'keep', ...given };
	const pending = [];
	let credentials = initialCredentials;
	// Like a credential record: the node refers to it by id (one id per distinct credential data
	// unless given), n8n decrypts it on every getCredentials call (counted in credentialReads).
	const credentialId =
		options.credentialId ??
		(credentials === null
			? undefined
			: `cred-${crypto.createHash('sha256').update(JSON.stringify(credentials)).digest('hex').slice(0, 12)}`);
	let credentialReads = 0;
	let executionCredentialReads = 0;
	// what n8n's getCredentials gives in both contexts: a copy of the record, or its error
	const storedCredential = (type) => {
		if (type !== CREDENTIAL_TYPE || credentials === null) {
			throw new Error('Node does not have any credentials set');
		}
		return { ...credentials };
	};

	const executions = [];
	const deliveries = [];
	const probe = createNode();
	const nodeTypeName = `n8n-nodes-sbl.${probe.description.name}`;

	let requestsStarted = 0;
	const server = http.createServer((req, res) => {
		requestsStarted += 1;
		const chunks = [];
		req.on('data', (chunk) => chunks.push(chunk));
		req.on('end', () => {
			handle(req, res, Buffer.concat(chunks)).catch((error) => {
				deliveries.push({ error });
				if (!res.writableEnded) {
					res.statusCode = 500;
					res.end(String(error && error.message));
				}
			});
		});
	});

	async function handle(req, res, raw) {
		const node = createNode();
		const nodeTypes = {
			getByName: () => node,
			getByNameAndVersion: () => node,
			getKnownTypes: () => ({}),
		};
		const nodeDefinition = () => ({
			id: 'node-1',
			name: nodeName,
			type: nodeTypeName,
			typeVersion,
			position: [0, 0],
			webhookId: 'hook-1',
			parameters: JSON.parse(JSON.stringify(parameters)),
			...(credentialId === undefined
				? {}
				: { credentials: { [CREDENTIAL_TYPE]: { id: credentialId, name: 'Signing' } } }),
		});
		const stored = db.read();
		const workflow = new Workflow({
			id: 'wf-1',
			name: 'Consent flow events',
			nodes: [nodeDefinition()],
			connections: {},
			active: true,
			nodeTypes,
			staticData: stored,
		});
		const workflowNode = workflow.getNode(nodeName);

		let bodyJson = {};
		try {
			bodyJson = JSON.parse(raw.toString('utf8'));
		} catch {
			bodyJson = {};
		}
		const request = {
			method: req.method,
			url: req.url,
			headers: req.headers,
			body: bodyJson,
			query: {},
			params: {},
			rawBody: provideRawBody ? raw : undefined,
			rawHeaders: req.rawHeaders,
			socket: req.socket,
			async readRawBody() {
				request.rawBody = raw;
			},
		};
		const expressRes = expressLikeResponse(res);

		const context = {
			getRequestObject: () => request,
			getResponseObject: () => expressRes,
			getHeaderData: () => request.headers,
			getBodyData: () => request.body,
			getQueryData: () => request.query,
			getParamsData: () => request.params,
			getNode: () => workflowNode,
			getMode: () => mode,
			getWebhookName: () => 'default',
			getNodeWebhookUrl: () => `http://127.0.0.1/webhook/hook-1/webhook`,
			getWorkflow: () => ({ id: workflow.id, name: workflow.name, active: true }),
			getNodeParameter(name, fallback) {
				const value = workflowNode.parameters[name];
				return value === undefined ? fallback : value;
			},
			async getCredentials(type) {
				credentialReads += 1;
				// a database read and a decryption take time: deliveries arriving meanwhile overlap it
				if (credentialReadMs > 0)
					await new Promise((resolve) => setTimeout(resolve, credentialReadMs));
				return storedCredential(type);
			},
			getWorkflowStaticData: (type) => workflow.getStaticData(type, workflowNode),
			helpers: { returnJsonArray },
		};

		// The webhook description's response fields, read before the node's webhook() runs
		// (executeWebhook → evaluateResponseOptions). n8n 2.41 resolves a field natively when it
		// still carries the template of its resolver and no parameter holds an expression
		// (n8n-workflow's resolveWebhookDescriptionField); n8n 1.x (n8nMajor: 1) ignores the
		// resolvers and evaluates the template with its expression engine.
		const description = node.description.webhooks.find((w) => w.name === 'default');
		const field = (name, fallback) => {
			const value = description[name];
			if (n8nMajor >= 2) {
				const native = resolveWebhookDescriptionField(workflowNode, description, name);
				if (native.resolved) return native.value;
			}
			if (typeof value === 'string' && value.startsWith('=')) {
				return workflow.expression.getSimpleParameterValue(workflowNode, value, mode, {});
			}
			return value === undefined ? fallback : value;
		};
		const responseMode = field('responseMode', 'onReceived');
		const responseData = field('responseData', 'firstEntryJson');

		const result = await node.webhook.call(context);
		const record = { result, staticDataSaved: false, requestHeaders: req.headers };
		deliveries.push(record);

		let callbackDone = false;
		const responseCallback = (data) => {
			// live-webhooks.js: `await saveStaticData(workflow); resolve(data)`
			if (callbackDone) return;
			callbackDone = true;
			if (mode !== 'manual' && workflow.staticData.__dataChanged === true) {
				db.staticData = JSON.stringify(workflow.staticData);
				db.writes += 1;
				workflow.staticData.__dataChanged = false;
				record.staticDataSaved = true;
			}
			if (data.noWebhookResponse !== true && !res.writableEnded) {
				const body = data.data;
				res.statusCode = data.responseCode ?? 200;
				if (typeof body === 'string') {
					res.setHeader('content-type', 'text/html; charset=utf-8');
					expressRes.end(body);
				} else {
					res.setHeader('content-type', 'application/json; charset=utf-8');
					expressRes.end(JSON.stringify(body));
				}
			}
		};

		if (result.noWebhookResponse === true) responseCallback({ noWebhookResponse: true });

		if (result.workflowData === undefined) {
			responseCallback({
				data:
					result.webhookResponse !== undefined
						? result.webhookResponse
						: { message: 'Webhook call received' },
				responseCode: 200,
			});
			return;
		}

		// WorkflowRunner.run → establishContextForPersistence: `new Workflow({ staticData:
		// workflowData.staticData })` over the same raw object the request's Workflow wraps.
		new Workflow({
			id: 'wf-1',
			name: 'Consent flow events',
			nodes: [nodeDefinition()],
			connections: {},
			active: true,
			nodeTypes,
			staticData: stored,
		});

		// The execution (runMainProcess): static data is loaded again from the database, the start
		// node's execute() (if it has one) runs with the webhook's items as its input, and n8n saves
		// static data when the execution ends if it changed (never for 'manual'). Run before the
		// answer here, so that tests see its effects deterministically.
		const runExecution = async () => {
			const execWorkflow = new Workflow({
				id: 'wf-1',
				name: 'Consent flow events',
				nodes: [nodeDefinition()],
				connections: {},
				active: true,
				nodeTypes,
				staticData: db.read(),
			});
			const execNode = execWorkflow.getNode(nodeName);
			const input = result.workflowData;
			const execContext = {
				getInputData: (index = 0) => input[index] ?? [],
				getNodeParameter(name, _itemIndex, fallback) {
					const value = execNode.parameters[name];
					return value === undefined ? fallback : value;
				},
				getMode: () => mode,
				getNode: () => execNode,
				// as n8n-core's NodeExecutionContext.nodeOutputs: the outputs n8n computes for the node
				getNodeOutputs: () =>
					NodeHelpers.getNodeOutputs(execWorkflow, execNode, node.description).map((output) =>
						typeof output === 'string' ? { type: output } : output,
					),
				getWorkflow: () => ({ id: execWorkflow.id, name: execWorkflow.name, active: true }),
				getWorkflowStaticData: (type) => execWorkflow.getStaticData(type, execNode),
				// an execution reads the credential as the webhook does (counted apart: n8n needs no new isolate here)
				async getCredentials(type) {
					executionCredentialReads += 1;
					return storedCredential(type);
				},
				// ExecuteContext.sendResponse → the 'sendResponse' hook → responsePromise (responseNode
				// mode): setupResponseNodePromise writes a Buffer body to the response as it is; any
				// other body goes through the response callback, which does nothing once the node
				// returned noWebhookResponse.
				async sendResponse(response) {
					if (responseMode !== 'responseNode') return;
					if (Buffer.isBuffer(response.body)) {
						if (response.statusCode) res.statusCode = response.statusCode;
						for (const [k, v] of Object.entries(response.headers || {})) res.setHeader(k, v);
						expressRes.end(response.body);
						callbackDone = true;
					} else {
						responseCallback({ data: response.body, responseCode: response.statusCode ?? 200 });
					}
				},
			};
			const outputs =
				typeof node.execute === 'function' ? await node.execute.call(execContext) : input;
			if (mode !== 'manual' && execWorkflow.staticData.__dataChanged === true) {
				db.staticData = JSON.stringify(execWorkflow.staticData);
				db.writes += 1;
			}
			const failed = typeof failWorkflow === 'function' && (await failWorkflow(outputs)) === true;
			executions.push({ workflowData: outputs, requestHeaders: req.headers, failed });
			return { outputs, failed };
		};

		// The moment WorkflowRunner.run() stores the execution (a test can hold a delivery here).
		if (typeof beforeStore === 'function') await beforeStore(record);

		// WorkflowRunner.run() throws (e.g. the database is locked): n8n answers 500 and no
		// execution exists.
		if (typeof storeFails === 'function' && storeFails() === true) {
			if (callbackDone) {
				// n8n was told there is no webhook response: nothing answers, the request is left
				// open until the client gives up (here: the connection is dropped at once).
				res.destroy();
			} else {
				responseCallback({
					data: { message: 'There was a problem executing the workflow' },
					responseCode: 500,
				});
			}
			return;
		}

		// Regular mode runs the execution after the onReceived answer: with deferExecutions the
		// harness answers first and runs it on drain().
		if (deferExecutions && responseMode !== 'lastNode') {
			pending.push(runExecution);
			if (responseMode === 'responseNode') return;
		} else {
			const { outputs, failed } = await runExecution();
			if (responseMode === 'lastNode') {
				// After the run: 500 'Error in workflow' when it failed, else the response data.
				if (failed) {
					responseCallback({ data: { message: 'Error in workflow' }, responseCode: 500 });
				} else if (responseData === 'noData') {
					callbackDone = true;
					res.statusCode = 200;
					expressRes.end();
				} else {
					responseCallback({ data: outputs, responseCode: 200 });
				}
				return;
			}
			// responseNode: the node answered (or not) through sendResponse.
			if (responseMode === 'responseNode') return;
		}

		// Deferred onReceived answer: responseData defaults to 'firstEntryJson', which
		// extractWebhookOnReceivedResponse returns as a literal string.
		const body =
			responseData === 'noData'
				? undefined
				: responseData ||
					(result.webhookResponse !== undefined
						? result.webhookResponse
						: { message: 'Workflow was started' });
		responseCallback({ data: body, responseCode: 200 });
	}

	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address();

	return {
		url: `http://127.0.0.1:${port}/webhook/hook-1/webhook`,
		db,
		executions,
		deliveries,
		/** Requests whose headers arrived (the body may still be on its way). */
		get requestsStarted() {
			return requestsStarted;
		},
		get credentialReads() {
			return credentialReads;
		},
		get executionCredentialReads() {
			return executionCredentialReads;
		},
		/** Changes the stored credential under the same id (null: n8n finds none). */
		setCredentials(value) {
			credentials = value;
		},
		get pendingExecutions() {
			return pending.length;
		},
		/** Runs the executions deferred so far (deferExecutions), in arrival order. */
		async drain() {
			while (pending.length) await pending.shift()();
		},
		/** Stops listening as n8n does first on SIGTERM (open connections stay, new ones are refused). */
		stopListening() {
			server.close();
		},
		async close() {
			server.closeAllConnections();
			await new Promise((resolve) => server.close(() => resolve()));
		},
	};
}

/**
 * POSTs `body` over real HTTP in two parts: the first `split` bytes, then — after `between()` —
 * the rest (n8n, like this harness, reads the whole body before the node runs). Returns
 * { status, headers, json }.
 */
async function postInTwoParts(url, body, headers, between, split = 10) {
	const { request } = require('undici');
	const { Readable } = require('node:stream');
	async function* parts() {
		yield body.subarray(0, split);
		await between();
		yield body.subarray(split);
	}
	const response = await request(url, {
		method: 'POST',
		body: Readable.from(parts()),
		headers: { 'content-length': String(body.length), ...headers },
	});
	const text = await response.body.text();
	let json;
	try {
		json = JSON.parse(text);
	} catch {
		json = undefined;
	}
	return { status: response.statusCode, headers: response.headers, json };
}

/**
 * The sender hangs up: sends `body` whole, then destroys the connection once `hangUp()` resolves,
 * whatever was answered by then. Resolves when the connection is gone.
 */
function postAndHangUp(url, body, headers, hangUp) {
	return new Promise((resolve) => {
		const req = http.request(url, {
			method: 'POST',
			headers: {
				'content-type': 'application/json',
				'content-length': Buffer.byteLength(body),
				...headers,
			},
		});
		req.on('error', () => {});
		req.on('response', (res) => res.resume());
		req.end(body, async () => {
			await hangUp();
			req.destroy();
			resolve();
		});
	});
}

module.exports = {
	harnessMajor,
	startHarness,
	createDatabase,
	postInTwoParts,
	postAndHangUp,
	CREDENTIAL_TYPE,
};
