import {
  type ArgumentTemplate,
  fillArguments,
  pathToText,
  type SiteValues,
  type TemplateSite,
} from './argument-template.js';
import { measureJsonValue } from './json-limits.js';
import type { PlanLimits } from './plan-limits.js';
import type { MissingReference } from './plan-result.js';
import {
  MISSING,
  parseJsonContainer,
  readPath,
  toInterpolatedText,
  UnreadableOutput,
} from './read-reference.js';
import type { Reference, StringTemplate } from './reference.js';

/** A step's arguments would grow past `maxArgumentsBytes` as its references are filled in. */
export class ArgumentsTooLarge {
  constructor(readonly actual: number) {}
}

const NOT_PARSED: unique symbol = Symbol('not-parsed');

/** A step's arguments with its references filled in, and the references that pointed at nothing. */
export interface FilledArguments {
  readonly args: Record<string, unknown>;
  readonly missing: MissingReference[] | undefined;
}

/**
 * Fills steps' `$ref`s from the outputs of the steps they use (by run position). Each step's arguments stay within
 * `maxArgumentsBytes` as they are filled: every value is charged before anything is built. An output string read as
 * JSON to follow a path is read once, however many references go through it.
 */
export class ReferenceFiller {
  readonly #limits: PlanLimits;
  readonly #values: unknown[] = [];
  readonly #parsedValues: unknown[] = [];
  #missing: MissingReference[] | undefined;
  /** Bytes the step being filled may still take (`maxArgumentsBytes` less what is written and filled so far). */
  #remaining = 0;
  readonly #readTexts = new Map<string, unknown>();
  readonly #readText = (text: string): unknown => {
    let read = this.#readTexts.get(text);
    if (read === undefined && !this.#readTexts.has(text)) {
      read = parseJsonContainer(text, this.#limits.maxReferencedOutputBytes);
      this.#readTexts.set(text, read);
    }
    return read;
  };
  /** What `fillArguments` calls back (one object per filler, made once). */
  readonly #siteValues: SiteValues = {
    siteValue: (site) => this.#valueForSite(site),
    outputValue: (stepIndex, site) => {
      const value = this.#values[stepIndex];
      // Not recorded (or undefined): the general lookup records it as missing.
      if (value === undefined) return this.#valueForSite(site);
      this.#charge(value);
      return value;
    },
  };

  constructor(limits: PlanLimits) {
    this.#limits = limits;
  }

  /** Records the output of the step at a position, for the references to it. */
  setOutput(position: number, output: unknown): void {
    this.#values[position] = output;
    this.#parsedValues[position] = NOT_PARSED;
  }

  /** The output recorded for a position (`undefined` before it finished, and for a step that failed). */
  outputOf(position: number): unknown {
    return this.#values[position];
  }

  /** A copy of `args` with each reference site filled. Throws `ArgumentsTooLarge` past the byte limit. */
  fill(args: Readonly<Record<string, unknown>>, template: ArgumentTemplate): FilledArguments {
    const maximum = this.#limits.maxArgumentsBytes;
    this.#missing = undefined;
    this.#remaining = maximum - template.writtenBytes;
    const filled = fillArguments(args, template, this.#siteValues);
    return { args: filled, missing: this.#missing };
  }

  /**
   * The value of one reference site, charged to the step's byte budget before anything is built: a whole reference
   * costs the JSON size of the value it inserts (measured by a walk that stops at the budget), a reference inside
   * text the length of the text it adds.
   */
  #valueForSite(site: TemplateSite): unknown {
    const whole = site.reference;
    if (whole !== undefined) {
      const value = this.#lookup(whole, site);
      if (value === MISSING) return null;
      this.#charge(value);
      return value;
    }
    // Not a whole reference, so text with references in it.
    const template = site.template as Extract<StringTemplate, { kind: 'text' }>;
    const pieces: string[] = [];
    for (const part of template.parts) {
      if (typeof part === 'string') {
        this.#spend(part.length);
        pieces.push(part);
        continue;
      }
      const value = this.#lookup(part, site);
      // Strings and scalars cost their length; an object is measured before `JSON.stringify` builds its text.
      const isObject = value !== null && typeof value === 'object';
      if (isObject) this.#charge(value);
      const text = toInterpolatedText(value);
      if (!isObject) this.#spend(text.length);
      pieces.push(text);
    }
    return pieces.join('');
  }

  #spend(bytes: number): void {
    this.#remaining -= bytes;
    if (this.#remaining < 0) throw new ArgumentsTooLarge(this.#limits.maxArgumentsBytes - this.#remaining);
  }

  #charge(value: unknown): void {
    if (typeof value === 'string') {
      this.#spend(value.length + 2);
      return;
    }
    // A number, boolean or null costs 8, as measureJsonValue counts it, without the walk (and the closure and
    // result object it allocates): references to scalars are the common case, one per reference filled.
    if (value === null || typeof value !== 'object') {
      this.#spend(8);
      return;
    }
    const budget = Math.max(0, this.#remaining);
    const measured = measureJsonValue(value, budget, this.#limits.maxDepth);
    if (measured.violation?.limit === 'bytes') {
      throw new ArgumentsTooLarge(this.#limits.maxArgumentsBytes - budget + measured.bytes);
    }
    this.#spend(measured.bytes);
  }

  #lookup(reference: Reference, site: TemplateSite): unknown {
    const index = reference.stepIndex;
    let value: unknown;
    if (reference.path.length === 0) value = this.#values[index];
    else {
      let root = this.#parsedValues[index];
      // Unset for a position whose output was never recorded: read from the value then, like any other.
      if (root === NOT_PARSED || root === undefined) {
        root = this.#values[index];
        if (typeof root === 'string') root = this.#readText(root);
        this.#parsedValues[index] = root;
      }
      value = readPath(root, reference.path, this.#readText);
    }
    if (value === MISSING || value === undefined || value instanceof UnreadableOutput) {
      this.#missing ??= [];
      this.#missing.push({
        reference: reference.text,
        argumentPath: pathToText(site.path),
        ...(value instanceof UnreadableOutput ? { reason: value.reason } : {}),
      });
      return MISSING;
    }
    return value;
  }
}
