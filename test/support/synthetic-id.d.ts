export function checkDigit(digits: number[], weights: number[]): number | undefined;
export function withCheckDigits(nine: string): string | undefined;
export function syntheticNationalId(n: number): string;
export function withWrongCheckDigit(id: string): string;
