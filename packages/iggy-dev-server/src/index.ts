/**
 * A development server that speaks the Apache Iggy protocol (VSR and classic), in memory or on disk. Not for production.
 * @module
 */
export const PLACEHOLDER: true = true;
