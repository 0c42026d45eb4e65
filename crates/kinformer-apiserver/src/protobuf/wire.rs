//! The protobuf wire format: varints and the four wire types kube's messages use.

use super::DecodeError;

/// One field's value on the wire.
#[derive(Debug, Clone, Copy)]
pub enum Wire<'a> {
    Varint(u64),
    Fixed64(u64),
    /// A 32-bit value, skipped: no kube message has a `fixed32` or `float` field.
    Fixed32,
    Bytes(&'a [u8]),
}

fn truncated() -> DecodeError {
    DecodeError::Malformed("the message is truncated".into())
}

/// Reads a varint off the front of `input`.
pub fn varint(input: &mut &[u8]) -> Result<u64, DecodeError> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = input.split_first().ok_or_else(truncated)?;
        *input = rest;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(DecodeError::Malformed(
        "a varint is longer than 10 bytes".into(),
    ))
}

/// A varint as Go's generated code reads an int32: its low 32 bits (Go writes a negative int32
/// sign-extended to 64 bits).
pub fn int32(value: u64) -> i32 {
    let [a, b, c, d, ..] = value.to_le_bytes();
    i32::from_le_bytes([a, b, c, d])
}

fn take<'a>(input: &mut &'a [u8], length: usize) -> Result<&'a [u8], DecodeError> {
    if input.len() < length {
        return Err(truncated());
    }
    let (head, rest) = input.split_at(length);
    *input = rest;
    Ok(head)
}

/// Reads one field (number and value) off the front of `input`.
pub fn field<'a>(input: &mut &'a [u8]) -> Result<(u32, Wire<'a>), DecodeError> {
    let key = varint(input)?;
    let number = u32::try_from(key >> 3)
        .map_err(|_| DecodeError::Malformed(format!("field number {} is too big", key >> 3)))?;
    let value = match key & 7 {
        0 => Wire::Varint(varint(input)?),
        1 => Wire::Fixed64(u64::from_le_bytes(
            take(input, 8)?.try_into().map_err(|_| truncated())?,
        )),
        2 => {
            let length = usize::try_from(varint(input)?).map_err(|_| truncated())?;
            Wire::Bytes(take(input, length)?)
        }
        5 => {
            take(input, 4)?;
            Wire::Fixed32
        }
        other => {
            return Err(DecodeError::Malformed(format!(
                "wire type {other} of field {number} is not supported"
            )));
        }
    };
    Ok((number, value))
}

/// All fields of a message, in wire order.
pub fn fields(mut input: &[u8]) -> Result<Vec<(u32, Wire<'_>)>, DecodeError> {
    let mut out = Vec::new();
    while !input.is_empty() {
        out.push(field(&mut input)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_decode_and_truncation_is_an_error() {
        assert_eq!(varint(&mut &[0x96, 0x01][..]), Ok(150));
        assert_eq!(int32((-2i64).cast_unsigned()), -2);
        assert!(varint(&mut &[0x96][..]).is_err());
        assert!(fields(&[0x0a, 0x05, b'a']).is_err());
    }
}
