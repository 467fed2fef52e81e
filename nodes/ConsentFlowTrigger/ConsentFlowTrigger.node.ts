import {
	NodeConnectionTypes,
	type ICredentialTestFunctions,
	type ICredentialsDecrypted,
	type IDataObject,
	type IHookFunctions,
	type INodeCredentialTestResult,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { DEDUPE_KEY, DEFAULT_REMEMBERED, MAX_REMEMBERED, recordDeliveryShared } from './dedupe';
import {
	ALL_EVENT_OPTIONS,
	EVENT_OPTIONS,
	OUTPUT_NAMES,
	UNRECOGNISED_ENTRY,
	UNRECOGNISED_INDEX,
	normaliseEventSelection,
	type EventSelection,
} from './events';
import { bodyText, checkFreshness, eventItem, parseDelivery, unrecognisedItem } from './envelope';
import {
	headersWithoutSecrets,
	signatureCandidates,
	signingCredentialProblem,
	verifyAnySignature,
	type HeaderBag,
} from './signature';

/** Value of the `events` option that stands for the `Unrecognised` output. */
export const UNRECOGNISED_EVENT_OPTION = UNRECOGNISED_ENTRY.value;

export type DeliveryStatus = 'emitted' | 'duplicate' | 'filtered' | 'stale';

export interface DeliveryAck {
	received: true;
	event: string | null;
	webhookId: string | null;
	status: DeliveryStatus;
}

/** The parts of n8n's (express) request the node uses. */
interface RequestLike {
	headers: HeaderBag;
	rawBody?: Buffer | string;
	readRawBody?: () => Promise<void>;
}

/** The parts of n8n's (express) response the node uses. */
interface ResponseLike {
	status(code: number): ResponseLike;
	send(body: unknown): ResponseLike;
	json(body: unknown): unknown;
	end(): unknown;
}

async function readRawBody(req: RequestLike): Promise<Buffer | undefined> {
	if (req.rawBody === undefined && typeof req.readRawBody === 'function') {
		try {
			await req.readRawBody();
		} catch {
			// Unreadable body: nothing can be verified, the caller answers 401.
			return undefined;
		}
	}
	const raw = req.rawBody;
	if (Buffer.isBuffer(raw)) return raw;
	if (typeof raw === 'string') return Buffer.from(raw, 'utf8');
	return undefined;
}

function unauthorized(res: ResponseLike): IWebhookResponseData {
	res.status(401).send('Unauthorized').end();
	return { noWebhookResponse: true };
}

export class ConsentFlowTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Consent Flow Trigger',
		name: 'consentFlowTrigger',
		icon: { light: 'file:../../icons/sbl.svg', dark: 'file:../../icons/sbl.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: 'Signed consent flow webhooks',
		description:
			'Starts the workflow when the consent flow service (SBL) sends a signed webhook event',
		defaults: {
			name: 'Consent Flow Trigger',
		},
		inputs: [],
		outputs: OUTPUT_NAMES.map(() => NodeConnectionTypes.Main),
		outputNames: [...OUTPUT_NAMES],
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
				responseMode: 'onReceived',
				path: 'webhook',
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
					'Deliveries that start the workflow. Others are acknowledged with 200 and dropped; each event keeps its own output either way.',
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
				const problem = signingCredentialProblem(data.secret, data.signatureHeader);
				if (problem !== null) {
					return { status: 'Error', message: problem };
				}
				return {
					status: 'OK',
					message:
						'The signing secret is well formed. The service offers no way to check it: a wrong secret shows up as 401 answers to its deliveries.',
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
		const req = this.getRequestObject() as unknown as RequestLike;
		const res = this.getResponseObject() as unknown as ResponseLike;

		// 1. Verify. Everything fails closed: no secret, no header, unreadable body or a wrong
		//    signature is answered 401 and nothing runs.
		let credentials: IDataObject | undefined;
		try {
			credentials = await this.getCredentials<IDataObject>('consentFlowWebhookSigningApi');
		} catch {
			credentials = undefined;
		}
		const secret = typeof credentials?.secret === 'string' ? credentials.secret : '';
		const configuredHeader =
			typeof credentials?.signatureHeader === 'string' ? credentials.signatureHeader : '';
		if (secret === '') return unauthorized(res);

		// Every candidate signature counts (several matching headers, repeated or comma-joined
		// values), at most MAX_SIGNATURE_CANDIDATES: the answer never depends on header order.
		const headers: HeaderBag = req.headers ?? {};
		const candidates = signatureCandidates(headers, configuredHeader);
		if (candidates.length === 0) return unauthorized(res);

		const rawBody = await readRawBody(req);
		if (rawBody === undefined || !verifyAnySignature(rawBody, candidates, secret)) {
			return unauthorized(res);
		}

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

		// 3. Parse (tolerant; anything signed but not understood goes to `Unrecognised`).
		const text = bodyText(rawBody);
		const delivery = parseDelivery(rawBody);
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
		//    emitted).
		const ignoreDuplicates = this.getNodeParameter('ignoreDuplicates', true) as boolean;
		if (ignoreDuplicates && delivery.deliveryKey !== null) {
			const remembered = this.getNodeParameter(
				'rememberedDeliveries',
				DEFAULT_REMEMBERED,
			) as number;
			// A test URL ('manual' mode) has its own memory in the process and never touches
			// static data (n8n does not save it for test webhooks): what is tried on a test URL
			// does not block the Production URL, nor the other way round.
			const testUrl = this.getMode() === 'manual';
			const staticData = testUrl ? undefined : this.getWorkflowStaticData('node');
			const memoryKey = [
				testUrl ? 'test' : 'production',
				this.getWorkflow().id ?? '',
				this.getNode().name,
			].join('\u0000');
			const decision = recordDeliveryShared(
				memoryKey,
				staticData?.[DEDUPE_KEY],
				delivery.deliveryKey,
				remembered,
			);
			if (decision.duplicate) {
				return { webhookResponse: ack('duplicate') };
			}
			// Assigning (even the same object again) to a key of the node's observable static data
			// sets n8n's change flag; the object is shared by all requests of this process.
			if (staticData) staticData[DEDUPE_KEY] = decision.state as unknown as IDataObject;
		}

		// 7. Emit on the event's own output.
		const json =
			delivery.kind === 'event'
				? eventItem(delivery, receivedAt)
				: unrecognisedItem(delivery, text, receivedAt);
		if (options.includeHeaders === true) {
			json.headers = headersWithoutSecrets(headers, configuredHeader);
		}
		const outputIndex = delivery.kind === 'event' ? delivery.outputIndex : UNRECOGNISED_INDEX;
		const workflowData: INodeExecutionData[][] = OUTPUT_NAMES.map(() => []);
		workflowData[outputIndex].push({ json: json as unknown as IDataObject });

		// The node answers itself and returns `noWebhookResponse`: n8n then runs its response
		// callback, which saves the static data (the remembered id), before it prepares the
		// execution. With n8n's deferred `onReceived` answer, preparing the execution resets the
		// change flag first and the write is lost (n8n 2.41; see the README, "Duplicates: what is guaranteed").
		res.status(200).json(ack('emitted'));
		return { workflowData, noWebhookResponse: true };
	}
}
