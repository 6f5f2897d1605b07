const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const DAY = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
const LONG_DAY = "(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)";
const MONTH = `(${MONTHS.join("|")})`;
const TIME = "(\\d{2}):(\\d{2}):(\\d{2})";
/** `Sun, 06 Nov 1994 08:49:37 GMT` */
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
/** `Sunday, 06-Nov-94 08:49:37 GMT` */
const RFC850_DATE = new RegExp(`^${LONG_DAY}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
/** `Sun Nov  6 08:49:37 1994` */
const ASCTIME_DATE = new RegExp(`^${DAY} ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);

/**
 * An HTTP-date (RFC 9110 §5.6.7) in milliseconds since the epoch, or undefined for anything else
 * (another format, two dates in one field, a day that does not exist): a condition on a value that
 * is not a valid HTTP-date is ignored, never guessed at as `Date.parse` would. All three formats a
 * recipient must accept; a two-digit year more than 50 years ahead is of the past century.
 */
export function parseHttpDate(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  const fields = dateFields(text, new Date(now).getUTCFullYear());
  if (!fields) return undefined;
  const [day, month, year, hour, minute, second] = fields;
  if (month === -1 || minute > 59 || second > 60) return undefined;
  const time = Date.UTC(year, month, day, hour, minute, second);
  const date = new Date(time);
  // Date.UTC rolls 31 Feb over into March and 25:00 into the next day: such a value is no date.
  if (date.getUTCDate() !== day || date.getUTCHours() !== hour) return undefined;
  return time;
}

/** Day, month (0-11), year, hour, minute, second of one of the three formats; undefined for none. */
type Fields = [day: number, month: number, year: number, hour: number, minute: number, second: number];

function dateFields(text: string, thisYear: number): Fields | undefined {
  const n = Number;
  const fix = IMF_FIXDATE.exec(text);
  if (fix) return [n(fix[1]), MONTHS.indexOf(fix[2] as string), n(fix[3]), n(fix[4]), n(fix[5]), n(fix[6])];
  const rfc850 = RFC850_DATE.exec(text);
  if (rfc850) {
    let year = Math.floor(thisYear / 100) * 100 + n(rfc850[3]);
    if (year > thisYear + 50) year -= 100;
    return [
      n(rfc850[1]),
      MONTHS.indexOf(rfc850[2] as string),
      year,
      n(rfc850[4]),
      n(rfc850[5]),
      n(rfc850[6]),
    ];
  }
  const asc = ASCTIME_DATE.exec(text);
  if (asc) return [n(asc[2]), MONTHS.indexOf(asc[1] as string), n(asc[6]), n(asc[3]), n(asc[4]), n(asc[5])];
  return undefined;
}
