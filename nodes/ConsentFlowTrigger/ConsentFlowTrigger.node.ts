import {
	NodeOperationError,
	type ICredentialTestFunctions,
	type ICredentialsDecrypted,
	type IDataObject,
	type IExecuteFunctions,
	type INodeCredentialTestResult,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { apply } from '../shared/webhook/apply';
import { FACTS, decide, inExecution, type Ack } from '../shared/webhook/decide';
import {
	bodyText,
	canonicalEvent,
	eventItem,
	unrecognisedItem,
	type ParsedDelivery,
} from '../shared/webhook/envelope';
import {
	ALL_EVENT_OPTIONS,
	CONFIGURED_OUTPUTS,
	OUTPUT_MODES,
	SINGLE_OUTPUT_NAME,
	eventOption,
	eventsProperty,
	normaliseEventSelection,
	outputNameOf,
	staticOutputNames,
	type EventSelection,
} from '../shared/webhook/events';
import { intake, refusalInEditor, refusedTestItem } from '../shared/webhook/intake';
import {
	MINIMISE_DEFAULT,
	MINIMISE_PARAMETER,
	headerNames,
	minimiseHeaders,
	minimiseMode,
	minimiseProperty,
	minimiseUnrecognisedItem,
	minimiseValues,
} from '../shared/webhook/minimise';
import { previousSecretNote, signingCredentialCheck } from '../shared/webhook/signing-credential';
import { refreshSigningFacts, type VerifiedDelivery } from '../shared/webhook/verify';
import {
	DEFAULT_REMEMBERED,
	MAX_REMEMBERED,
	claim,
	follow,
	hold,
	keepSaved,
	lookUp,
	slotOf,
} from './dedupe';
import { SAVED, askToSave, saveUrlOf, takeSaveRequest } from './save-request';
import {
	CARRIER,
	DEFAULT_RESPOND,
	RESPOND_OPTIONS,
	answerer,
	readCarrier,
	RESPONSE_FIELDS,
	type Carrier,
} from './respond';

/** The Events selection; one that cannot be read (e.g. from an expression) is a configuration error. */
function eventSelection(ctx: IWebhookFunctions): EventSelection {
	try {
		const events = ctx.getNodeParameter('events', [...ALL_EVENT_OPTIONS]) as unknown;
		return normaliseEventSelection(events);
	} catch (error) {
		return {
			ok: false,
			message: `The trigger is misconfigured: Events could not be read (${(error as Error).message}).`,
		};
	}
}

/** The item's json: the event (or Unrecognised) as the user chose to keep it, headers if asked. */
function deliveryJson(
	ctx: IWebhookFunctions,
	delivery: ParsedDelivery,
	verified: VerifiedDelivery,
	options: IDataObject,
): IDataObject {
	const receivedAt = new Date().toISOString();
	const text = bodyText(verified.rawBody);
	const minimise = minimiseMode(ctx.getNodeParameter(MINIMISE_PARAMETER, MINIMISE_DEFAULT));
	const json: Record<string, unknown> =
		delivery.kind === 'event'
			? minimiseValues(eventItem(delivery, receivedAt), minimise)
			: minimiseUnrecognisedItem(unrecognisedItem(delivery, text, receivedAt), text, minimise);
	json.signedWith = verified.signedWith;
	if (options.includeHeaders === true) {
		// by allow-list (README), never the configured signature header, values searched like the payload
		const signature = verified.signatureHeader.trim().toLowerCase();
		const added = headerNames(options.additionalHeaders).filter((name) => name !== signature);
		json.headers = minimiseHeaders(verified.headers, minimise, added);
	}
	return json as IDataObject;
}

export class ConsentFlowTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Consent Flow Trigger',
		name: 'consentFlowTrigger',
		icon: { light: 'file:../../icons/sbl.svg', dark: 'file:../../icons/sbl.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: 'Signed consent flow webhooks',
		description: 'Starts the workflow on a signed webhook event of the consent flow service (SBL)',
		defaults: {
			name: 'Consent Flow Trigger',
		},
		inputs: [],
		outputs: CONFIGURED_OUTPUTS,
		credentials: [
			{
				// a literal: n8n-node lint (credential-test-required) reads testedBy only beside one
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
				...RESPONSE_FIELDS,
			},
		],
		properties: [
			{
				displayName:
					"Give this node's Production URL as <code>webhookUrl</code> when you start a flow with the Consent Flow node, and publish (n8n 1.x: activate) this workflow before you do.",
				name: 'notice',
				type: 'notice',
				default: '',
			},
			eventsProperty(),
			{
				displayName: 'Outputs',
				name: 'outputMode',
				type: 'options',
				options: [...OUTPUT_MODES],
				default: 'perEvent',
				description: 'Whether each selected event gets its own output or all share one',
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
				description: 'Whether to acknowledge but not emit a delivery this trigger already emitted',
			},
			{
				displayName: 'Remembered Deliveries',
				name: 'rememberedDeliveries',
				type: 'number',
				default: DEFAULT_REMEMBERED,
				typeOptions: { minValue: 1, maxValue: MAX_REMEMBERED },
				displayOptions: { show: { ignoreDuplicates: [true] } },
				description: 'How many of the latest deliveries to remember',
			},
			minimiseProperty(
				'What the items, saved with the execution, keep of identity numbers and authorization codes',
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
						description: 'Whether to add the request headers that carry no credential to each item',
					},
					{
						displayName: 'Additional Headers',
						name: 'additionalHeaders',
						type: 'string',
						default: '',
						placeholder: 'x-forwarded-for, traceparent',
						description: 'With Include Headers: more header names to add, comma-separated',
					},
					{
						displayName: 'Maximum Age (Seconds)',
						name: 'maxAgeSeconds',
						type: 'number',
						default: 0,
						typeOptions: { minValue: 0 },
						description:
							'Acknowledge but drop a delivery whose timestamp is further than this from now (0: off)',
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
				const problem = signingCredentialCheck(data);
				if (problem !== null) {
					return { status: 'Error', message: problem };
				}
				const note = previousSecretNote(data.secret, data.previousSecret);
				// n8n shows any OK as "Connection tested successfully": a secret no call can check is not OK
				return {
					status: 'Error',
					message: `Not checked: the signing secret is well formed, but the service offers no way to check it here. To check it, click "Listen for test event" on the Consent Flow Trigger and let the service send a delivery to the Test URL: a wrong secret shows there.${note === null ? '' : ` ${note}`}`,
				};
			},
		},
	};

	// The service has no API for registering webhooks (the URL is given per flow): nothing to do.
	webhookMethods = {
		default: {
			checkExists: async () => true,
			create: async () => true,
			delete: async () => true,
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const save = await takeSaveRequest(this);
		if (save === 'refused') return apply(this, decide(FACTS));
		if (save !== null) {
			keepSaved(this, save.keys);
			// n8n writes this answer after it saved static data (a webhookResponse without an execution)
			return { webhookResponse: SAVED };
		}
		const options = this.getNodeParameter('options', {}) as IDataObject;
		const { facts, taken } = await intake(this, 'trigger', {
			maxAgeSeconds: Number(options.maxAgeSeconds ?? 0),
		});
		if (taken === undefined) {
			const refused = refusedTestItem(this, facts);
			const answered = apply(this, decide(facts));
			return refused === null ? answered : { ...answered, workflowData: [[refused]] };
		}
		const { delivery, verified } = taken;
		const node = this.getNode();
		const selection = eventSelection(this);
		const option = eventOption(delivery.kind === 'event' ? delivery.event : null);
		const slot = slotOf(this, delivery);
		const answer = decide({
			...facts,
			misconfigured: selection.ok ? null : selection.message,
			selected: selection.ok && selection.values.has(option),
			answeredBy: answerer(this.getNodeParameter('respond', DEFAULT_RESPOND), node.parameters),
			hasKey: slot !== null,
			...(slot && lookUp(slot)),
		});
		if (answer.kind !== 'run') return apply(this, answer);
		const held = slot === null ? undefined : hold(slot, answer.plan);
		const { answeredBy } = answer.plan;
		const carrier: Carrier = {
			option,
			key: slot?.key ?? null,
			answeredBy,
			nonce: held?.nonce ?? '',
			ack: answer.ack,
			...(answeredBy === 'execute' && slot?.staticData && { saveUrl: saveUrlOf(this) }),
		};
		const json = deliveryJson(this, delivery, verified, options);
		const items = [{ json, [CARRIER]: carrier as unknown as IDataObject }];
		return follow(this, held, apply(this, answer, { items }));
	}

	/** Puts each delivery on its event's output and, where it answers (decide.ts), answers the delivery. */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const node = this.getNode();
		const refusal = refusalInEditor(this.getInputData());
		if (refusal !== null) throw new NodeOperationError(node, refusal.message, refusal);
		// computed from the saved parameters, so that an execution evaluates no expression
		const names =
			staticOutputNames(node.parameters) ??
			this.getNodeOutputs().map((output) => output.displayName ?? '');
		const single = names.length === 1 && names[0] === SINGLE_OUTPUT_NAME;
		const outputs: INodeExecutionData[][] = names.map(() => []);
		let answer: Ack | undefined;
		let unrouted: string | undefined;
		const kept: { url: string; keys: string[] } = { url: '', keys: [] };
		this.getInputData().forEach((item, index) => {
			const carrier = readCarrier(item);
			if (carrier?.ack) {
				const claimed = claim(this, carrier);
				const { emit, answer: status } = inExecution(carrier.answeredBy, claimed);
				if (status !== null) answer = { ...carrier.ack, status };
				if (claimed === 'mine' && carrier.key !== null && carrier.saveUrl) {
					kept.url = carrier.saveUrl;
					kept.keys.push(carrier.key);
				}
				if (!emit) return;
			}
			const event = typeof item.json.event === 'string' ? canonicalEvent(item.json.event) : null;
			const option = carrier?.option ?? eventOption(event);
			const output = single ? 0 : names.indexOf(outputNameOf(option));
			if (output === -1) unrouted ??= option;
			else outputs[output].push({ json: item.json, pairedItem: { item: index } });
		});
		if (unrouted !== undefined) {
			// only when the Events selection changed between the delivery and this step
			throw new NodeOperationError(
				node,
				`This node has no output for "${unrouted}": select it under Events (or choose Outputs: One for All Events) and publish (1.x: activate) the workflow again. This delivery was answered with an error; whether the service sends it again is not published.`,
			);
		}
		if (answer !== undefined) {
			// the key this answer decides is saved first (save-request.ts)
			await askToSave(this, kept.url, kept.keys);
			await this.sendResponse({
				body: Buffer.from(JSON.stringify(answer)),
				headers: { 'content-type': 'application/json; charset=utf-8' },
				statusCode: 200,
			});
		}
		// here n8n reads a credential without a new isolate, which the webhook path would need (docs/architecture.md)
		await refreshSigningFacts(this);
		return outputs;
	}
}
