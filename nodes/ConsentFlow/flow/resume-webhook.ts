/** The resume URL of a waiting Create and Wait for Outcome: one delivery, answered by decide.ts. */
import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';
import { validateHttpUrl } from '../../shared/identifiers';
import { eventItem, type RecognisedDelivery } from '../../shared/webhook/envelope';
import { apply } from '../../shared/webhook/apply';
import { decide } from '../../shared/webhook/decide';
import {
	MINIMISE_DEFAULT,
	MINIMISE_PARAMETER,
	minimiseMode,
	minimiseValues,
} from '../../shared/webhook/minimise';
import { personalValuesOf } from '../../shared/personal';
import { intake } from '../../shared/webhook/intake';
import type { VerifiedDelivery } from '../../shared/webhook/verify';
import { canRunWaitingNodeAgain, runWaitingNodeAgain } from '../../shared/n8n-compat';
import { WAIT_EVENTS, type Match } from './outcome';

export const RESUME_KEY = '__sblConsentDelivery';
/** What the delivery is matched by, taken before minimising (outcome.ts Match). */
export const RESUME_MATCH_KEY = '__sblMatch';

/** The Last Name parameter as `read` gets it; an expression that fails has no name to mask. */
export function lastNameOf(read: () => unknown): unknown {
	try {
		return read();
	} catch {
		return undefined;
	}
}

/** The resume URL without its query (n8n 2.x puts the execution's resume token there). */
function shownUrl(url: string): string {
	try {
		const parsed = new URL(url);
		return `${parsed.origin}${parsed.pathname}`;
	} catch {
		return '(not a URL)';
	}
}

/** This execution's resume URL, where the service sends the events. */
export function resumeUrlOf(ctx: IExecuteFunctions, production: boolean): string {
	const resumeUrl = String(ctx.evaluateExpression('{{ $execution.resumeUrl }}', 0) ?? '');
	const urlProblem = validateHttpUrl(resumeUrl, production);
	if (urlProblem === undefined) return resumeUrl;
	throw new NodeOperationError(
		ctx.getNode(),
		`n8n's resume URL of this execution (${shownUrl(resumeUrl)}) ${urlProblem}`,
		{
			itemIndex: 0,
			description:
				'The service sends the events to it. Set WEBHOOK_URL of your n8n to its public https address (the one the service can reach), then run again.',
		},
	);
}

/** A delivery to the resume URL: decide's answer; a run resumes with the event only if it is known. */
export async function createAndWaitWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const taken = await intake(this, 'resume', { maxAgeSeconds: 0 });
	const answer = decide({ ...taken.facts, canResume: canRunWaitingNodeAgain(this) });
	const { delivery, verified } = taken.taken ?? {};
	const items =
		delivery?.kind === 'event' && verified ? [{ json: resumeJson(this, delivery, verified) }] : [];
	if (answer.kind === 'run') runWaitingNodeAgain(this);
	return apply(this, answer, { items });
}

/** What resumes the execution, saved by n8n: an outcome's minimised event, else only names, ids and times. */
function resumeJson(
	ctx: IWebhookFunctions,
	delivery: RecognisedDelivery,
	verified: VerifiedDelivery,
): IDataObject {
	const item = eventItem(delivery, new Date().toISOString());
	const match: Match = {
		flowId: typeof item.flowId === 'string' ? item.flowId : null,
		externalIdKeys: typeof item.externalId === 'string' ? verified.matchKeys(item.externalId) : [],
		key: delivery.deliveryKey,
		...(delivery.otherKeys && { also: delivery.otherKeys.also }),
	};
	item.signedWith = verified.signedWith;
	const { event, webhookId, timestamp, flowId, externalId, receivedAt } = item;
	const mode = minimiseMode(ctx.getNodeParameter(MINIMISE_PARAMETER, MINIMISE_DEFAULT));
	// the Last Name parameter where it has a value here (a fixed text; not an expression over the input)
	const lastName = lastNameOf(() => ctx.getNodeParameter('lastName'));
	const { names } = personalValuesOf({ lastName });
	// saved with the execution: an externalId may be the applicant's number or name
	const carried =
		WAIT_EVENTS[delivery.event] === null
			? minimiseValues({ event, webhookId, timestamp, flowId, externalId, receivedAt }, mode, names)
			: minimiseValues(item, mode, names);
	return {
		[RESUME_KEY]: carried as IDataObject,
		[RESUME_MATCH_KEY]: match as unknown as IDataObject,
	};
}
