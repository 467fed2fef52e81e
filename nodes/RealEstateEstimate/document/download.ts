import { NodeApiError } from 'n8n-workflow';
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { apiStream } from '../../shared/transport';
import { checkPositiveInteger, itemLabel } from '../../shared/validation';
import type { EstimateOperation } from '../read';
import { checkBinaryPropertyName } from '../validators';
import { estimateWording, RETRY_POLICY } from '../wording';
import type { Subject } from '../wording';

const showOnlyForDownload = { resource: ['document'], operation: ['download'] };

export const downloadDescription: INodeProperties[] = [
	{
		displayName: 'Document ID',
		name: 'documentId',
		type: 'number',
		required: true,
		default: 0,
		typeOptions: { minValue: 1, numberPrecision: 0 },
		description: 'The estimateDocumentId of a stored estimate (see Document → Get Many)',
		displayOptions: { show: showOnlyForDownload },
	},
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		required: true,
		default: 'data',
		hint: 'The name of the output binary field to put the PDF in',
		displayOptions: { show: showOnlyForDownload },
	},
];

export interface DownloadPrepared {
	documentId: number;
	binaryPropertyName: string;
}

type BinaryInput = Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0];

export const MIME_TYPE = 'application/pdf';

export function documentFileName(documentId: number): string {
	return `estimate-${documentId}.pdf`;
}

function destroy(stream: unknown): void {
	const fn =
		stream !== null && typeof stream === 'object'
			? (stream as { destroy?: unknown }).destroy
			: undefined;
	if (typeof fn === 'function') (fn as () => void).call(stream);
}

export const download: EstimateOperation<DownloadPrepared> = {
	identifiesObject: false,
	prepare(ctx, { fields }, itemIndex) {
		return {
			documentId: fields.take(
				itemIndex,
				'documentId',
				checkPositiveInteger(ctx.getNodeParameter('documentId', itemIndex, '')),
			),
			binaryPropertyName: fields.take(
				itemIndex,
				'binaryPropertyName',
				checkBinaryPropertyName(ctx.getNodeParameter('binaryPropertyName', itemIndex, 'data')),
			),
		};
	},

	async run(ctx, { connection }, itemIndex, { documentId, binaryPropertyName }) {
		const path = `/EvEstimate/Documents/${documentId}`;
		const subject: Subject = {
			action: 'download the estimate document',
			target: `document ${documentId}`,
			notFound: `No estimate document ${documentId}`,
			badRequestHint: `document ID ${documentId} is missing or out of range`,
		};
		const { body, headers } = await apiStream(
			ctx,
			connection,
			{ method: 'GET', path, accept: MIME_TYPE },
			{ itemIndex, policy: RETRY_POLICY, wording: estimateWording(subject) },
		);
		const label = itemLabel(itemIndex);
		const contentType = (headers['content-type'] ?? '').toLowerCase();
		if (!body || /json|^text\//.test(contentType)) {
			destroy(body);
			throw new NodeApiError(
				ctx.getNode(),
				{ request: `GET ${path}`, contentType },
				{
					itemIndex,
					message: `${label}: The estimate API did not send a PDF for document ${documentId}`,
					description: `Expected application/pdf, got ${contentType || 'no content type'}.`,
				},
			);
		}
		const fileName = documentFileName(documentId);
		let binary;
		try {
			// the stream goes straight to n8n's binary data store (to disk in filesystem mode)
			binary = await ctx.helpers.prepareBinaryData(body as BinaryInput, fileName, MIME_TYPE);
		} catch (error) {
			destroy(body);
			throw new NodeApiError(
				ctx.getNode(),
				{ request: `GET ${path}`, reason: (error as Error)?.message ?? String(error) },
				{
					itemIndex,
					message: `${label}: The download of estimate document ${documentId} was interrupted`,
					description: 'The connection broke while the PDF was being received. Run the node again.',
					failure: { cause: 'temporarily-unavailable' },
				},
			);
		}
		const expected = Number(headers['content-length']);
		const size =
			typeof binary.bytes === 'number'
				? binary.bytes
				: Number.isFinite(expected)
					? expected
					: undefined;
		if (
			typeof binary.bytes === 'number' &&
			Number.isFinite(expected) &&
			binary.bytes !== expected
		) {
			throw new NodeApiError(
				ctx.getNode(),
				{ request: `GET ${path}`, expectedBytes: expected, receivedBytes: binary.bytes },
				{
					itemIndex,
					message: `${label}: The download of estimate document ${documentId} is incomplete (${binary.bytes} of ${expected} bytes)`,
					description: 'The connection broke while the PDF was being received. Run the node again.',
					failure: { cause: 'temporarily-unavailable' },
				},
			);
		}
		binary.fileName = fileName;
		binary.mimeType = MIME_TYPE;
		const json: Record<string, string | number> = { documentId, fileName, mimeType: MIME_TYPE };
		if (size !== undefined) json.fileSize = size;
		return [{ json, binary: { [binaryPropertyName]: binary } }];
	},
};
