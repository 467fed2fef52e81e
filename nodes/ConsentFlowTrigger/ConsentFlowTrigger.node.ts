import {
	NodeOperationError,
	type ICredentialTestFunctions,
	type ICredentialsDecrypted,
	type IDataObject,
	type IExecuteFunctions,
	type IHookFunctions,
	type INodeCredentialTestResult,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import {
	serverClosing,
	shuttingDown,
	unauthorized,
	verifiedDelivery,
	type ResponseLike,
} from './verify';
import { randomBytes } from 'crypto';

import {
	DEDUPE_KEY,
	DEFAULT_REMEMBERED,
	MAX_REMEMBERED,
	claimDelivery,
	forgetDelivery,
	ownDelivery,
	recordDeliveryShared,
} from './dedupe';
import {
	ALL_EVENT_OPTIONS,
	CONFIGURED_OUTPUTS,
	EVENT_OPTIONS,
	OUTPUT_MODES,
	OUTPUT_NAMES,
	SINGLE_OUTPUT_NAME,
	UNRECOGNISED_ENTRY,
	UNRECOGNISED_INDEX,
	normaliseEventSelection,
	outputNameOf,
	type EventSelection,
} from './events';
import {
	bodyText,
	canonicalEvent,
	checkFreshness,
	eventItem,
	unrecognisedItem,
} from './envelope';
import { BATCH_ANSWER, isCloudEventsBatch, parseIncoming, type IncomingRequest } from './cloudevents';
import {
	CARRIER,
	DEFAULT_RESPOND,
	RESPOND_OPTIONS,
	answersAtEnqueue,
	beginInFlight,
	endInFlight,
	readCarrier,
	respondMode,
	responseFields,
	type Carrier,
} from './respond';
import { headersWithoutSecrets, signingCredentialProblem } from './signature';
import { previousSecretNote, previousSecretProblem } from './rotation';
import { staticOutputNames } from './output-layout';
import {
	MINIMISE_KEEP,
	MINIMISE_PARAMETER,
	minimiseEventItem,
	minimiseMode,
	minimiseProperties,
	minimiseUnrecognisedItem,
} from './minimise';

/** Value of the `events` option that stands for the `Unrecognised` output. */
export const UNRECOGNISED_EVENT_OPTION = UNRECOGNISED_ENTRY.value;

export type DeliveryStatus = 'emitted' | 'duplicate' | 'filtered' | 'stale' | 'in-progress';

export interface DeliveryAck {
	received: true;
	event: string | null;
	webhookId: string | null;
	status: DeliveryStatus;
}

/** Where the duplicate memory of this trigger lives in the process (mode, workflow, node). */
function memoryKeyOf(testUrl: boolean, workflowId: string | undefined, nodeName: string): string {
	return [testUrl ? 'test' : 'production', workflowId ?? '', nodeName].join('\u0000');
}

/** The Events option of an input item without a carrier (e.g. pinned or hand-made input): by its event. */
function optionOfEvent(json: IDataObject): string {
	const event = typeof json.event === 'string' ? canonicalEvent(json.event) : null;
	return event ?? UNRECOGNISED_EVENT_OPTION;
}

export class ConsentFlowTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Consent Flow Trigger',
		name: 'consentFlowTrigger',
		icon: { light: 'file:../../icons/sbl.svg', dark: 'file:../../icons/sbl.dark.svg' },
		group: ['trigger'],
		// 1.1: Minimise Personal Data defaults to masking (version 1 keeps every field, as it did)
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle: 'Signed consent flow webhooks',
		description:
			'Starts the workflow when the consent flow service (SBL) sends a signed webhook event',
		defaults: {
			name: 'Consent Flow Trigger',
		},
		inputs: [],
		// Computed from Events and Outputs (as n8n's Switch node does): no handle for an event
		// that is not selected; with every event selected, the order of the ten events + Unrecognised.
		outputs: CONFIGURED_OUTPUTS,
		credentials: [
			{
				name: 'consentFlowWebhookSigningApi',
				required: true,
				testedBy: 'signingSecretTest',
			},
		],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				path: 'webhook',
				...responseFields(),
			},
		],
		properties: [
			{
				displayName:
					"Give this node's Production URL as <code>webhookUrl</code> when you start a flow with the Consent Flow node, and activate this workflow before you do. The service has no API for registering webhooks, so nothing is registered here: the trigger listens and answers 401 to any delivery whose signature does not verify.",
				name: 'notice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				options: EVENT_OPTIONS,
				default: [...ALL_EVENT_OPTIONS],
				description:
					'Deliveries that start the workflow; each gets an output. Others are acknowledged with 200 and dropped.',
			},
			{
				displayName: 'Outputs',
				name: 'outputMode',
				type: 'options',
				options: [...OUTPUT_MODES],
				default: 'perEvent',
				description:
					'Whether each selected event gets its own output, or all go to one output named Event (the event name is in each item either way)',
			},
			{
				displayName: 'Respond',
				name: 'respond',
				type: 'options',
				options: RESPOND_OPTIONS,
				default: DEFAULT_RESPOND,
				description: 'When the service gets its 200',
			},
			{
				displayName: 'Ignore Duplicate Deliveries',
				name: 'ignoreDuplicates',
				type: 'boolean',
				default: true,
				description:
					'Whether to acknowledge but not emit a delivery whose webhookId this trigger has already emitted. The IDs are kept in the workflow static data, so this holds across restarts.',
			},
			{
				displayName: 'Remembered Deliveries',
				name: 'rememberedDeliveries',
				type: 'number',
				default: DEFAULT_REMEMBERED,
				typeOptions: { minValue: 1, maxValue: MAX_REMEMBERED },
				displayOptions: { show: { ignoreDuplicates: [true] } },
				description: 'How many of the most recent webhook IDs to remember for duplicate detection',
			},
			...minimiseProperties(
				{},
				'What the items keep of the national ID, the authorization code and the raw body of unrecognised deliveries. Items are saved with the execution.',
			),
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					{
						displayName: 'Include Headers',
						name: 'includeHeaders',
						type: 'boolean',
						default: false,
						description:
							'Whether to add the request headers to each item. Headers that carry a credential (authorization, cookies, sessions, signatures, API keys, tokens, secrets, passwords) are left out.',
					},
					{
						displayName: 'Maximum Age (Seconds)',
						name: 'maxAgeSeconds',
						type: 'number',
						default: 0,
						typeOptions: { minValue: 0 },
						description:
							'Drop deliveries whose signed timestamp is further than this from now (acknowledged with status "stale", not emitted). Envelopes without a timestamp still pass. 0 turns the check off.',
					},
				],
			},
		],
	};

	methods = {
		credentialTest: {
			async signingSecretTest(
				this: ICredentialTestFunctions,
				credential: ICredentialsDecrypted,
			): Promise<INodeCredentialTestResult> {
				const data = credential.data ?? {};
				const problem =
					signingCredentialProblem(data.secret, data.signatureHeader) ??
					previousSecretProblem(data.previousSecret);
				if (problem !== null) {
					return { status: 'Error', message: problem };
				}
				const note = previousSecretNote(data.secret, data.previousSecret);
				return {
					status: 'OK',
					message: `The signing secret is well formed. The service offers no way to check it: a wrong secret shows up as 401 answers to its deliveries.${note === null ? '' : ` ${note}`}`,
				};
			},
		},
	};

	webhookMethods = {
		default: {
			// The service has no API for registering webhooks: the URL is given per flow
			// (`webhookUrl` of the Consent Flow node), so there is nothing to create or delete.
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const res = this.getResponseObject() as unknown as ResponseLike;
		// A stopping process takes nothing new: whatever it accepted now might be cut off between
		// n8n storing the execution and the answer (and then run again on the retry).
		if (serverClosing(this.getRequestObject())) return shuttingDown(res);

		// 1. Verify. Everything fails closed: no secret, no header, unreadable body or a wrong
		//    signature is answered 401 and nothing runs (verify.ts, shared with Create and Wait).
		const verified = await verifiedDelivery(this);
		if (verified === undefined) return unauthorized(res);
		const { rawBody, headers, signatureHeader: configuredHeader } = verified;

		// 2. The Events selection. An unknown value (e.g. from an expression) is a configuration
		//    error: answered 500 so that the service retries rather than the delivery being lost.
		let selection: EventSelection;
		try {
			selection = normaliseEventSelection(
				this.getNodeParameter('events', [...ALL_EVENT_OPTIONS]) as unknown,
			);
		} catch (error) {
			selection = {
				ok: false,
				message: `The trigger is misconfigured: Events could not be read (${(error as Error).message}).`,
			};
		}
		if (!selection.ok) {
			res
				.status(500)
				.json({ received: false, status: 'misconfigured', message: selection.message });
			return { noWebhookResponse: true };
		}

		// 3. Parse (tolerant; anything signed but not understood goes to `Unrecognised`): the
		//    service's envelope, or a CloudEvent (cloudevents.ts). A batch of CloudEvents is
		//    refused (415), never acknowledged and dropped.
		const request = this.getRequestObject() as unknown as IncomingRequest;
		if (isCloudEventsBatch(request.headers)) {
			res.status(415).json(BATCH_ANSWER);
			return { noWebhookResponse: true };
		}
		const text = bodyText(rawBody);
		const delivery = parseIncoming(rawBody, request);
		const receivedAt = new Date().toISOString();
		const eventName = delivery.event;
		const ack = (status: DeliveryStatus): DeliveryAck => ({
			received: true,
			event: eventName,
			webhookId: delivery.webhookId,
			status,
		});

		// 4. Replay window on the signed timestamp (off by default).
		const options = this.getNodeParameter('options', {}) as IDataObject;
		const maxAgeSeconds = Number(options.maxAgeSeconds ?? 0);
		const freshness = checkFreshness(delivery, maxAgeSeconds, Date.now());
		if (freshness === 'stale' || freshness === 'unparsable') {
			return { webhookResponse: ack('stale') };
		}

		// 5. Event filter.
		const optionValue = delivery.kind === 'event' ? delivery.event : UNRECOGNISED_EVENT_OPTION;
		if (!selection.values.has(optionValue)) {
			return { webhookResponse: ack('filtered') };
		}

		// 6. Duplicate suppression on the exact key of the id (deliveries without one are always
		//    emitted). Immediately on n8n 2.x: only checked now, remembered (in the process and in
		//    static data) when n8n reads webhookResponse after storing the execution; a copy
		//    arriving meanwhile gets 409. Immediately otherwise (n8n 1.x): remembered now, in the
		//    process and in static data, which n8n saves before it creates the execution. When the
		//    Workflow Finishes: only checked now, remembered once n8n answered 2xx; a copy arriving
		//    while the first still runs gets 409 (retryable).
		const respond = respondMode({ respond: this.getNodeParameter('respond', DEFAULT_RESPOND) });
		const node = this.getNode();
		// n8n 2.x answers Immediately itself once the execution is stored (see respond.ts).
		const atEnqueue =
			respond === 'onReceived' && answersAtEnqueue(node.parameters as Record<string, unknown>);
		const ignoreDuplicates = this.getNodeParameter('ignoreDuplicates', true) as boolean;
		const deliveryKey = ignoreDuplicates ? delivery.deliveryKey : null;
		// A test URL ('manual' mode) has its own memory in the process and never touches static
		// data (n8n does not save it for test webhooks): what is tried on a test URL does not
		// block the Production URL, nor the other way round.
		const testUrl = this.getMode() === 'manual';
		const memoryKey = memoryKeyOf(testUrl, this.getWorkflow().id, node.name);
		// Immediately on n8n 2.x: what the webhookResponse getter does once n8n stored the execution.
		let recordAtEnqueue: (() => void) | undefined;
		if (deliveryKey !== null) {
			const remembered = this.getNodeParameter(
				'rememberedDeliveries',
				DEFAULT_REMEMBERED,
			) as number;
			const staticData = testUrl ? undefined : this.getWorkflowStaticData('node');
			// Immediately on n8n 1.x records the id now; the others only check it now.
			const checkOnly = atEnqueue || respond === 'lastNode';
			const decision = recordDeliveryShared(
				memoryKey,
				staticData?.[DEDUPE_KEY],
				deliveryKey,
				remembered,
				!checkOnly,
			);
			if (decision.duplicate) return { webhookResponse: ack('duplicate') };
			// One copy at a time per process: a copy arriving while the first is not yet stored
			// (Immediately on n8n 2.x) or still running (When the Workflow Finishes) gets a 409.
			if (checkOnly && !beginInFlight(memoryKey, deliveryKey)) {
				res.status(409).json(ack('in-progress'));
				return { noWebhookResponse: true };
			}
			// Assigning (even the same object again) to a key of the node's observable static data
			// sets n8n's change flag; the object is shared by all requests of this process, so
			// every save carries every id this process has seen. (When the Workflow Finishes, and
			// Immediately on n8n 2.x: the ids remembered after earlier 2xx answers — never this
			// one, which is not remembered yet.)
			const remember = (state: unknown) => {
				if (staticData) staticData[DEDUPE_KEY] = state as IDataObject;
			};
			remember(decision.state);
			if (atEnqueue) {
				recordAtEnqueue = () =>
					remember(recordDeliveryShared(memoryKey, undefined, deliveryKey, remembered).state);
			}
			res.once?.('close', () => {
				if (checkOnly) endInFlight(memoryKey, deliveryKey);
				// Whether the 2xx answer really went out (not on a dropped connection).
				const code = res.statusCode ?? 0;
				const answered = res.writableFinished === true && code >= 200 && code < 300;
				if (respond === 'lastNode') {
					if (answered) recordDeliveryShared(memoryKey, undefined, deliveryKey, remembered);
				} else if (!answered) {
					// Immediately, not answered 2xx (n8n could not store the execution): forgotten
					// again, so that the service's retry runs.
					forgetDelivery(memoryKey, deliveryKey);
				}
			});
		}

		// 7. Emit. All items go on the node's first input with their output and key beside the
		//    json (see respond.ts); execute() puts each on its event's output.
		const minimise = minimiseMode(this.getNodeParameter(MINIMISE_PARAMETER, MINIMISE_KEEP));
		const json =
			delivery.kind === 'event'
				? minimiseEventItem(eventItem(delivery, receivedAt), minimise)
				: minimiseUnrecognisedItem(unrecognisedItem(delivery, text, receivedAt), text, minimise);
		if (delivery.cloudEvent !== undefined) json.cloudEvent = { ...delivery.cloudEvent };
		if (options.includeHeaders === true) {
			json.headers = headersWithoutSecrets(headers, configuredHeader);
		}
		const carrier: Carrier = {
			output: delivery.kind === 'event' ? delivery.outputIndex : UNRECOGNISED_INDEX,
			key: deliveryKey,
			respond,
			nonce: deliveryKey === null ? '' : randomBytes(9).toString('base64url'),
			ack: { ...ack('emitted'), status: 'emitted' },
			answered: atEnqueue,
		};
		// This copy owns its key in this process: execute() in the same process (one n8n) then
		// knows it from a copy that another process let through.
		if (deliveryKey !== null && respond === 'onReceived') {
			ownDelivery(memoryKey, deliveryKey, carrier.nonce);
		}
		const item: INodeExecutionData = {
			json: json as unknown as IDataObject,
			[CARRIER]: carrier as unknown as IDataObject,
		};

		if (atEnqueue) {
			// n8n reads webhookResponse once it has stored (queued) the execution, then saves
			// static data and answers: the id is recorded then, and only then (once).
			const result: IWebhookResponseData = { workflowData: [[item]] };
			Object.defineProperty(result, 'webhookResponse', {
				enumerable: true,
				get: () => {
					recordAtEnqueue?.();
					recordAtEnqueue = undefined;
					return carrier.ack;
				},
			});
			return result;
		}
		// Immediately on n8n 1.x: `noWebhookResponse` makes n8n save static data now and leave the
		// answer to execute() (sendResponse). When the Workflow Finishes: n8n answers after the run
		// (200, or 500 when it failed).
		if (respond === 'onReceived') return { workflowData: [[item]], noWebhookResponse: true };
		return { workflowData: [[item]] };
	}

	/**
	 * Runs as the first step of the execution (on a worker in queue mode): puts each delivery on
	 * its event's output and, under "Immediately" where n8n did not answer already (n8n 1.x; see
	 * respond.ts), answers the delivery (sendResponse): 200 once the execution exists and has
	 * started. A copy of a delivery that another copy already claimed in this process (two
	 * webhook processes each accepted one, and both executions came to this worker) is not
	 * emitted (and, where this step answers, answered "duplicate").
	 */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		// The outputs as n8n computes them for this node (CONFIGURED_OUTPUTS): each delivery goes to
		// the output named after its event, or to the one output of One for All Events. Computed
		// here from the saved parameters (output-layout.ts), so that an execution evaluates no
		// expression (n8n's lazy expression engine then creates no isolate); asked from n8n only
		// when Events or Outputs holds an expression.
		const names =
			staticOutputNames(this.getNode().parameters) ??
			this.getNodeOutputs().map((output) => output.displayName ?? '');
		const single = names.length === 1 && names[0] === SINGLE_OUTPUT_NAME;
		const outputs: INodeExecutionData[][] = names.map(() => []);
		const items = this.getInputData();
		const production = this.getMode() !== 'manual';
		let answer: DeliveryAck | undefined;
		let unrouted: string | undefined;
		items.forEach((item, index) => {
			const carrier = readCarrier(item, OUTPUT_NAMES.length);
			if (carrier?.respond === 'onReceived' && carrier.ack !== null) {
				if (!carrier.answered) answer = carrier.ack;
				if (production && carrier.key !== null && carrier.nonce !== '') {
					const memoryKey = memoryKeyOf(false, this.getWorkflow().id, this.getNode().name);
					if (claimDelivery(memoryKey, carrier.key, carrier.nonce) === 'taken') {
						// Under n8n 2.x's answer at enqueue the copy was already answered "emitted";
						// it is not emitted again either way.
						if (!carrier.answered) answer = { ...carrier.ack, status: 'duplicate' };
						return;
					}
				}
			}
			const option = carrier ? ALL_EVENT_OPTIONS[carrier.output] : optionOfEvent(item.json);
			const output = single ? 0 : names.indexOf(outputNameOf(option));
			if (output === -1) {
				unrouted ??= option;
				return;
			}
			outputs[output].push({ json: item.json, pairedItem: { item: index } });
		});
		if (unrouted !== undefined) {
			// Only when the Events selection changed between the delivery and this step.
			throw new NodeOperationError(
				this.getNode(),
				`This node has no output for "${unrouted}": select it under Events (or choose Outputs: One for All Events) and activate the workflow again. The service retries the delivery.`,
			);
		}
		if (answer !== undefined) {
			await this.sendResponse({
				body: Buffer.from(JSON.stringify(answer)),
				headers: { 'content-type': 'application/json; charset=utf-8' },
				statusCode: 200,
			});
		}
		return outputs;
	}
}
