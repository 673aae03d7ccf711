"""The XML members of an .SC2Map: placed objects (named points) and the map's own game-data catalogs."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

Json = Any

_INT = re.compile(r"-?\d+")
_FLOAT = re.compile(r"-?\d+\.\d*(e[-+]?\d+)?|-?\d+e[-+]?\d+", re.IGNORECASE)


class CatalogError(ValueError):
    """An XML member holds something this reader does not know; the message names it."""


def _scalar(text: str) -> Json:
    if _INT.fullmatch(text):
        return int(text)
    if _FLOAT.fullmatch(text):
        return float(text)
    return text


def _numbers(text: str) -> list[float]:
    return [float(part) for part in text.split(",")]


def read_points(xml: bytes) -> list[dict]:
    """The Objects member's named points, in file order: id, name, position (x, y, z), rotation, scale."""
    root = ET.fromstring(xml)
    points, names = [], set()
    for element in root:
        if element.tag != "ObjectPoint":
            raise CatalogError(f"Objects holds a {element.tag}; this reader knows only ObjectPoint")
        name = element.get("Name", "")
        if name in names:
            raise CatalogError(
                f"two points of Objects are named {name!r}; triggers could not tell them apart"
            )
        names.add(name)
        point = {
            "id": int(element.get("Id", "")),
            "name": name,
            "position": _numbers(element.get("Position", "")),
        }
        if element.get("Rotation") is not None:
            point["rotation"] = float(element.get("Rotation", ""))
        point["scale"] = _numbers(element.get("Scale", "1,1,1"))
        point["type"] = element.get("Type", "Normal")
        points.append(point)
    return points


def _fields(element: ET.Element) -> dict[str, Json]:
    """One catalog entry's fields, in file order. `<LifeMax value="45"/>` -> "LifeMax": 45;
    `<FlagArray index="PreventDestroy" value="1"/>` -> "FlagArray[PreventDestroy]": 1; `<WeaponArray Link=.../>`
    and any other field written more than once (or named *Array without an index) -> a list; a field with
    other attributes or children -> an object of them."""
    keys = [
        child.tag + (f"[{child.get('index')}]" if child.get("index") is not None else "") for child in element
    ]
    fields: dict[str, Json] = {}
    for key, child in zip(keys, element):
        attributes = {name: value for name, value in child.attrib.items() if name != "index"}
        if len(child) == 0 and set(attributes) == {"value"}:
            value: Json = _scalar(attributes["value"])
        elif len(child) == 0 and set(attributes) == {"Link"}:
            value = attributes["Link"]
        else:
            value = {name: _scalar(text) for name, text in attributes.items()}
            value.update(_fields(child))
        repeated = keys.count(key) > 1 or (key.endswith("Array") and child.get("index") is None)
        if repeated:
            fields.setdefault(key, []).append(value)
        else:
            fields[key] = value
    return fields


def read_catalog(xml: bytes, member: str, real_names: set[str]) -> dict[str, dict]:
    """Every entry of one GameData catalog (`<CUnit id="Marine_RL">...`): its class, whether it changes a type
    of the real game or adds a new one, its parent if it names one, and every field it sets."""
    root = ET.fromstring(xml)
    if root.tag != "Catalog":
        raise CatalogError(f"{member} has root <{root.tag}>, not <Catalog>")
    entries: dict[str, dict] = {}
    for element in root:
        entry_id = element.get("id")
        if entry_id is None or entry_id in entries:
            raise CatalogError(f"{member} has a {element.tag} with a missing or repeated id ({entry_id!r})")
        entry: dict[str, Json] = {
            "class": element.tag,
            "kind": "override" if entry_id in real_names else "new",
        }
        if element.get("parent") is not None:
            entry["parent"] = element.get("parent")
        for name, value in element.attrib.items():
            if name not in ("id", "parent"):
                entry[name] = _scalar(value)
        entry["fields"] = _fields(element)
        entries[entry_id] = entry
    return entries
