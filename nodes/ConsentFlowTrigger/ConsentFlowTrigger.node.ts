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

import type { ResponseLike, VerifiedDelivery } from '../shared/webhook/verify';
import { intake } from '../shared/webhook/intake';
import { answerWhenStored, saveInStaticData } from '../shared/n8n-compat';
import { admit, answerPlan, settle, type Admission, type AnswerPlan } from './answer';
import { randomBytes } from 'crypto';

import {
	DEDUPE_KEY,
	DEFAULT_REMEMBERED,
	MAX_REMEMBERED,
	acceptedHere,
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
} from '../shared/webhook/events';
import {
	bodyText,
	canonicalEvent,
	checkFreshness,
	eventItem,
	unrecognisedItem,
} from '../shared/webhook/envelope';
import type { IncomingDelivery } from '../shared/webhook/cloudevents';
import {
	CARRIER,
	DEFAULT_RESPOND,
	RESPOND_OPTIONS,
	answersAtEnqueue,
	beginInFlight,
	endInFlight,
	isInFlight,
	readCarrier,
	respondMode,
	responseFields,
	type Carrier,
} from './respond';
import { headersWithoutSecrets, signingCredentialProblem } from '../shared/webhook/signature';
import { previousSecretNote, previousSecretProblem } from '../shared/webhook/rotation';
import { staticOutputNames } from './output-layout';
import { ACCEPT_UNSIGNED_OPTION } from '../shared/webhook/signed';
import {
	MINIMISE_KEEP,
	MINIMISE_PARAMETER,
	minimiseEventItem,
	minimiseHeaders,
	minimiseMode,
	minimiseProperties,
	minimiseUnrecognisedItem,
} from '../shared/webhook/minimise';

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

/** The Events selection; an unknown value (e.g. from an expression) is a configuration error. */
function eventSelection(ctx: IWebhookFunctions): EventSelection {
	try {
		return normaliseEventSelection(
			ctx.getNodeParameter('events', [...ALL_EVENT_OPTIONS]) as unknown,
		);
	} catch (error) {
		return {
			ok: false,
			message: `The trigger is misconfigured: Events could not be read (${(error as Error).message}).`,
		};
	}
}

/** What becomes of a delivery with a key: its admission, and what n8n storing it remembers. */
interface Held {
	admission: Admission;
	rememberWhenStored?: () => void;
}

/**
 * Checks and holds a delivery's key as the plan says: remembered now or later, copies held while
 * it is not settled, and settled (remembered or forgotten) when its answer went out or did not.
 */
function holdDelivery(
	ctx: IWebhookFunctions,
	res: ResponseLike,
	plan: AnswerPlan,
	where: { memoryKey: string; deliveryKey: string; testUrl: boolean },
): Held {
	const { memoryKey, deliveryKey } = where;
	const remembered = ctx.getNodeParameter('rememberedDeliveries', DEFAULT_REMEMBERED) as number;
	const staticData = where.testUrl ? undefined : ctx.getWorkflowStaticData('node');
	const decision = recordDeliveryShared(
		memoryKey,
		staticData?.[DEDUPE_KEY],
		deliveryKey,
		remembered,
		false, // checked only: remembered as the plan says
	);
	const admission = admit(plan, {
		duplicate: decision.duplicate,
		copyInFlight: isInFlight(memoryKey, deliveryKey),
	});
	if (admission !== 'run') return { admission };
	if (plan.holdCopies) beginInFlight(memoryKey, deliveryKey);
	// The ids this process remembers, saved with the workflow (the state object is shared by all
	// requests of this process, so every save carries every id it has seen).
	const save = (state: unknown) => {
		if (staticData) saveInStaticData(staticData, DEDUPE_KEY, state);
	};
	save(decision.state);
	res.once?.('close', () => {
		if (plan.holdCopies) endInFlight(memoryKey, deliveryKey);
		// Whether the 2xx answer really went out (not on a dropped connection).
		const code = res.statusCode ?? 0;
		const answered = res.writableFinished === true && code >= 200 && code < 300;
		const settlement = settle(plan, answered);
		if (settlement === 'remember') {
			recordDeliveryShared(memoryKey, undefined, deliveryKey, remembered);
		} else if (settlement === 'forget') forgetDelivery(memoryKey, deliveryKey);
	});
	if (plan.remember !== 'when-stored') return { admission };
	return {
		admission,
		rememberWhenStored: () =>
			save(recordDeliveryShared(memoryKey, undefined, deliveryKey, remembered).state),
	};
}

/** Records a delivery's key in this process and in the static data the execution saves. */
function rememberInExecution(ctx: IExecuteFunctions, memoryKey: string, key: string): void {
	const remembered = ctx.getNodeParameter('rememberedDeliveries', 0, DEFAULT_REMEMBERED) as number;
	const staticData = ctx.getWorkflowStaticData('node');
	const state = recordDeliveryShared(memoryKey, staticData[DEDUPE_KEY], key, remembered).state;
	saveInStaticData(staticData, DEDUPE_KEY, state);
}

/** The item's json: the event (or Unrecognised) as the user chose to keep it, headers if asked. */
function deliveryJson(
	ctx: IWebhookFunctions,
	delivery: IncomingDelivery,
	verified: VerifiedDelivery,
	options: IDataObject,
): Record<string, unknown> {
	const receivedAt = new Date().toISOString();
	const text = bodyText(verified.rawBody);
	const minimise = minimiseMode(ctx.getNodeParameter(MINIMISE_PARAMETER, MINIMISE_KEEP));
	const json: Record<string, unknown> =
		delivery.kind === 'event'
			? minimiseEventItem(eventItem(delivery, receivedAt), minimise)
			: minimiseUnrecognisedItem(unrecognisedItem(delivery, text, receivedAt), text, minimise);
	json.signedWith = verified.signedWith;
	if (delivery.cloudEvent !== undefined) json.cloudEvent = { ...delivery.cloudEvent };
	if (options.includeHeaders === true) {
		// ce-subject and extensions can hold personal data: minimised like the payload
		json.headers = minimiseHeaders(headersWithoutSecrets(verified.headers, verified.signatureHeader), minimise);
	}
	return json;
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
					'Whether to acknowledge but not emit a delivery this trigger has already emitted: the same signed webhookId, or without one the same signed bytes. Kept with the workflow, so this holds across restarts.',
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
					ACCEPT_UNSIGNED_OPTION,
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
		// 1. Intake (shared with Create and Wait): 503 stopping, 401 unsigned, 415 batch, 400 when
		//    unsigned headers would decide (signed.ts); the duplicate key comes from signed bytes.
		const options = this.getNodeParameter('options', {}) as IDataObject;
		const maxAgeSeconds = Number(options.maxAgeSeconds ?? 0);
		const taken = await intake(this, {
			acceptUnsigned: options.acceptUnsignedHeaders === true,
			maxAgeSeconds,
		});
		if ('answered' in taken) return taken.answered;
		const { delivery, verified } = taken;

		// 2. The Events selection; one that cannot be read is answered 500, so the service retries.
		const selection = eventSelection(this);
		if (!selection.ok) {
			res
				.status(500)
				.json({ received: false, status: 'misconfigured', message: selection.message });
			return { noWebhookResponse: true };
		}

		const ack = (status: DeliveryStatus): DeliveryAck => ({
			received: true,
			event: delivery.event,
			webhookId: delivery.webhookId,
			status,
		});

		// 3. Replay window on the signed timestamp (off by default).
		const freshness = checkFreshness(delivery, maxAgeSeconds, Date.now());
		if (freshness === 'stale' || freshness === 'unparsable') {
			return { webhookResponse: ack('stale') };
		}

		// 4. Event filter.
		const optionValue = delivery.kind === 'event' ? delivery.event : UNRECOGNISED_EVENT_OPTION;
		if (!selection.values.has(optionValue)) return { webhookResponse: ack('filtered') };

		// 5. Duplicates, on the key of the signed id or signed bytes. Who answers, when the key is
		//    remembered and what a copy gets: answer.ts.
		const respond = respondMode({ respond: this.getNodeParameter('respond', DEFAULT_RESPOND) });
		const node = this.getNode();
		// the stored parameters, not the resolved ones: n8n resolves natively only without expressions
		const atEnqueue =
			respond === 'onReceived' && answersAtEnqueue(node.parameters as Record<string, unknown>);
		const ignoreDuplicates = this.getNodeParameter('ignoreDuplicates', true) as boolean;
		const deliveryKey = ignoreDuplicates ? delivery.deliveryKey : null;
		const plan = answerPlan(respond, atEnqueue, deliveryKey !== null);
		// A test URL ('manual' mode) has its own memory in the process and never touches static
		// data (n8n does not save it for test webhooks): what is tried on a test URL does not
		// block the Production URL, nor the other way round.
		const testUrl = this.getMode() === 'manual';
		const memoryKey = memoryKeyOf(testUrl, this.getWorkflow().id, node.name);
		const held =
			deliveryKey === null
				? { admission: 'run' as const }
				: holdDelivery(this, res, plan, { memoryKey, deliveryKey, testUrl });
		if (held.admission === 'duplicate') return { webhookResponse: ack('duplicate') };
		if (held.admission === 'in-progress') {
			res.status(409).json(ack('in-progress'));
			return { noWebhookResponse: true };
		}

		// 6. Emit: the item goes on the node's first input with its output and key beside the json
		//    (see respond.ts); execute() puts it on its event's output.
		const carrier: Carrier = {
			output: delivery.kind === 'event' ? delivery.outputIndex : UNRECOGNISED_INDEX,
			key: deliveryKey,
			respond,
			nonce: deliveryKey === null ? '' : randomBytes(9).toString('base64url'),
			ack: { ...ack('emitted'), status: 'emitted' },
			answered: plan.answeredBy === 'n8n-when-stored',
		};
		// This copy owns its key in this process: execute() in the same process (one n8n) then
		// knows it from a copy that another process let through.
		if (deliveryKey !== null && respond === 'onReceived') {
			ownDelivery(memoryKey, deliveryKey, carrier.nonce);
		}
		const item: INodeExecutionData = {
			json: deliveryJson(this, delivery, verified, options) as unknown as IDataObject,
			[CARRIER]: carrier as unknown as IDataObject,
		};
		switch (plan.answeredBy) {
			case 'n8n-when-stored':
				// the id is recorded when n8n has stored (queued) the execution, and only then
				return answerWhenStored({ workflowData: [[item]] }, () => {
					held.rememberWhenStored?.();
					return carrier.ack;
				});
			case 'execute':
				// n8n saves static data now and leaves the answer to execute() (sendResponse)
				return { workflowData: [[item]], noWebhookResponse: true };
			default:
				// n8n answers after the run: 200, or 500 when it failed
				return { workflowData: [[item]] };
		}
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
					const here = acceptedHere(memoryKey, carrier.key, carrier.nonce);
					if (claimDelivery(memoryKey, carrier.key, carrier.nonce) === 'taken') {
						// Under n8n 2.x's answer at enqueue the copy was already answered "emitted";
						// it is not emitted again either way.
						if (!carrier.answered) answer = { ...carrier.ack, status: 'duplicate' };
						return;
					}
					// Answered here: remembered now that the execution exists (answer.ts,
					// 'when-answered'), saved with its static data where the process that took the
					// delivery runs it. A queue-mode worker writes no static data (two workers writing
					// it each kept only their own ids): the webhook process remembers the id once the
					// answer went out, and its next save carries it.
					if (!carrier.answered && here) rememberInExecution(this, memoryKey, carrier.key);
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
