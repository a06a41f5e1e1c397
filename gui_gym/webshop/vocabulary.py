"""What the catalog generator composes products from: five categories, their product types,
attributes, option groups, brands and price ranges.

Every word that goes into a title carries its part of speech by construction — brands are proper
nouns, type words and materials nouns, attribute adjectives not — so the generator can store each
title's nouns (what upstream's spaCy tagger feeds the type reward) without a model.

A :class:`ProductType` is a sub-category: its search ``query`` (upstream's ``query`` field), its
breadcrumb (``product_category``), the title's head nouns, the hidden attributes it may have
(each ``(phrase, nouns)``), the option groups it offers and its price range.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BRANDS", "CATEGORIES", "OPTION_VALUES", "USES", "ProductType"]


@dataclass(frozen=True)
class ProductType:
    category: str
    query: str
    breadcrumb: str
    head: str  # the title's head phrase, e.g. "argan oil shampoo"
    head_nouns: tuple[str, ...]
    attributes: tuple[str, ...]  # hidden attributes (phrases upstream's annotators would write)
    options: tuple[str, ...]  # option groups, keys of OPTION_VALUES
    price: tuple[float, float]
    uses: tuple[str, ...] = ()  # "for dry hair", keys of USES


#: Attribute words that are nouns (what a tagger marks NOUN in "sulfate free", "arch support").
NOUN_WORDS = frozenset(
    (
        "sulfate", "paraben", "cruelty", "alcohol", "fragrance", "oil", "hair", "skin", "vitamin", "water",
        "caffeine", "sugar", "gluten", "soy", "dairy", "protein", "fiber", "salt", "wash", "machine", "hand",
        "dryer", "stainless", "steel", "wood", "leather", "cotton", "polyester", "wool", "support", "arch",
        "sole", "rubber", "memory", "foam", "storage", "drawer", "size", "bag", "flavors", "material", "sound",
        "case", "alloy", "finish", "frame", "duty", "assembly", "bluetooth", "usb", "battery", "noise",
        "cancellation", "definition", "charging", "screen", "touch", "light", "shoulder", "strap", "pocket",
        "button", "zipper", "heel", "toe", "fleece", "lining", "waist", "control", "tummy", "calorie", "grain",
        "plant", "quality", "pack", "size", "color", "flavor", "style", "ounce", "inch", "count", "piece",
        "set", "roast", "bean", "tea", "leaf", "chocolate", "nut", "nuts", "peanut", "seeds", "fruit",
    )
)  # fmt: skip

OPTION_VALUES: dict[str, tuple[str, ...]] = {
    "size_apparel": ("x-small", "small", "medium", "large", "x-large", "xx-large", "3x-large"),
    "size_shoes": ("6", "6.5", "7", "7.5", "8", "8.5", "9", "9.5", "10", "10.5", "11", "12"),
    "size_liquid": ("2 fl oz", "4 fl oz", "8 fl oz", "8.5 fl oz", "16 fl oz", "32 fl oz", "33.8 fl oz"),
    "size_food": ("3 ounce", "4 ounce", "6 ounce", "8 ounce", "12 ounce", "16 ounce", "1 pound", "2 pound"),
    "size_furniture": ("24 inch", "30 inch", "32 inch", "40 inch", "47 inch", "55 inch", "60 inch"),
    "size_cable": ("3 feet", "6 feet", "6.6 feet", "10 feet", "15 feet", "25 feet"),
    "color": (
        "black", "jet black", "white", "off white", "navy", "navy blue", "light blue", "sky blue", "royal blue",
        "grey", "dark grey", "light grey", "red", "wine red", "pink", "hot pink", "green", "army green", "beige",
        "brown", "dark brown", "walnut", "espresso", "natural", "gold", "rose gold", "silver", "purple",
    ),
    "flavor_coffee": ("dark roast", "medium roast", "light roast", "french vanilla", "hazelnut", "colombian"),
    "flavor_tea": ("original", "peppermint", "lemon", "jasmine", "honey", "ginger", "unsweetened"),
    "flavor_snack": ("original", "spicy", "honey bbq", "teriyaki", "sea salt", "black pepper", "sweet & spicy"),
    "flavor_sweet": ("vanilla", "chocolate", "dark chocolate", "strawberry", "peanut butter", "caramel", "mint"),
    "flavor_sauce": ("original", "extra hot", "garlic", "chipotle", "habanero", "sriracha"),
    "item package quantity": ("1", "2", "3", "4", "6", "12"),
    "style": ("classic", "modern", "rustic", "industrial", "with drawer", "without drawer", "2-pack", "3-pack"),
    "scent": ("unscented", "lavender", "coconut", "citrus", "rose", "eucalyptus", "vanilla"),
    "pack": ("pack of 1", "pack of 2", "pack of 3", "pack of 4", "pack of 6", "pack of 12"),
}  # fmt: skip

#: "for <use>" phrases and their nouns.
USES: dict[str, tuple[str, ...]] = {
    "dry hair": ("hair",), "curly hair": ("hair",), "oily skin": ("skin",), "sensitive skin": ("skin",),
    "men": ("men",), "women": ("women",), "kids": ("kids",), "running": ("running",), "hiking": ("hiking",),
    "living room": ("living", "room"), "bedroom": ("bedroom",), "home office": ("home", "office"),
    "gaming": ("gaming",), "travel": ("travel",), "iphone": ("iphone",), "laptop": ("laptop",),
    "breakfast": ("breakfast",), "snacking": ("snacking",), "baking": ("baking",),
}  # fmt: skip

BRANDS: dict[str, tuple[str, ...]] = {
    "beauty": ("Lumiere", "Botanica", "Velvet Rose", "PureGlow", "Aqualis", "Nordic Bloom", "Silkara", "Amberly"),
    "food": ("Harvest Lane", "Golden Prairie", "Mesa Verde", "Old Mill", "Sunny Orchard", "Blue Ridge", "Kettleworks"),
    "fashion": ("Northpeak", "Urban Thread", "Coastline", "Ridgeway", "Marlowe", "Fieldstone", "Avenue Nine"),
    "furniture": ("Oakhaven", "Linden Home", "Brightwood", "Casa Nova", "Maple & Co", "Westfield", "Homestead"),
    "electronics": ("Voltix", "Sonaro", "Pixelon", "Wavecore", "Nexa", "Ampline", "Cirrus Labs", "Tekbolt"),
}


def _t(category: str, query: str, crumb: str, head: str, attributes: str, options: str, price: tuple[float, float],
       uses: str = "") -> ProductType:  # fmt: skip
    nouns = tuple(w for w in head.replace("-", " ").split() if w in NOUN_WORDS or w not in _ADJECTIVES)
    own = tuple(a.strip() for a in attributes.split(","))
    return ProductType(
        category, query, crumb, head, nouns, own + tuple(a for a in COMMON_ATTRIBUTES[category] if a not in own),
        tuple(o.strip() for o in options.split(",") if o.strip()), price,
        tuple(u.strip() for u in uses.split(",") if u.strip()),
    )  # fmt: skip


#: Attributes any type of a category may have, besides its own.
COMMON_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "beauty": ("travel size", "vegan", "alcohol free", "made in usa", "non toxic", "easy use", "high quality",
               "dermatologist tested"),
    "food": ("kosher", "sugar free", "nut free", "resealable bag", "artificial flavors", "high fiber", "vegan",
             "usda organic"),
    "fashion": ("machine washable", "slim fit", "quick drying", "wash cold", "polyester spandex", "daily wear",
                "soft material", "long sleeve"),
    "furniture": ("living room", "metal frame", "water resistant", "wood finish", "heavy duty", "assembly required",
                  "mid century", "easy clean"),
    "electronics": ("usb c", "plug play", "easy install", "compact size", "carrying case", "aluminum alloy",
                    "high resolution", "stereo sound"),
}  # fmt: skip

#: Words of head phrases that are not nouns.
_ADJECTIVES = frozenset(
    (
        "dark", "green", "hot", "extra", "virgin", "whole", "matte", "deep", "gel", "mineral", "high", "skinny",
        "flat", "maxi", "pullover", "puffer", "crew", "mechanical", "wireless", "portable", "adjustable",
        "electric", "ergonomic", "upholstered", "round", "small", "large", "mini", "smart", "waterproof", "non",
        "slip", "clip", "in",
    )
)  # fmt: skip

B = "Beauty & Personal Care"
G = "Grocery & Gourmet Food"
C = "Clothing, Shoes & Jewelry"
H = "Home & Kitchen › Furniture"
E = "Electronics"

CATEGORIES: dict[str, tuple[ProductType, ...]] = {
    "beauty": (
        _t("beauty", "shampoo", f"{B} › Hair Care › Shampoo & Conditioner › Shampoos", "argan oil shampoo",
           "sulfate free, paraben free, natural ingredients, color treated, long lasting, cruelty free",
           "size_liquid, scent", (6.0, 38.0), "dry hair, curly hair"),
        _t("beauty", "conditioner", f"{B} › Hair Care › Shampoo & Conditioner › Conditioners", "deep conditioner",
           "sulfate free, paraben free, natural ingredients, color treated, cruelty free, hair growth",
           "size_liquid, scent", (6.0, 34.0), "dry hair, curly hair"),
        _t("beauty", "face moisturizer", f"{B} › Skin Care › Face › Creams & Moisturizers", "face moisturizer cream",
           "fragrance free, oil free, hyaluronic acid, anti aging, cruelty free, dermatologist tested",
           "size_liquid, pack", (9.0, 60.0), "oily skin, sensitive skin"),
        _t("beauty", "lipstick", f"{B} › Makeup › Lips › Lipstick", "matte lipstick",
           "long lasting, cruelty free, highly pigmented, paraben free, easy apply", "color, pack", (5.0, 28.0)),
        _t("beauty", "hair extensions", f"{B} › Hair Care › Hair Extensions, Wigs & Accessories",
           "clip in hair extensions", "natural looking, heat resistant, easy apply, high quality, long lasting",
           "color, size_liquid", (15.0, 90.0)),
        _t("beauty", "body lotion", f"{B} › Skin Care › Body › Moisturizers › Lotions", "body lotion",
           "fragrance free, shea butter, dry skin, non greasy, paraben free, long lasting",
           "size_liquid, scent, pack", (5.0, 30.0), "sensitive skin"),
        _t("beauty", "sunscreen", f"{B} › Skin Care › Sunscreens & Tanning Products › Sunscreens",
           "mineral sunscreen lotion", "water resistant, reef safe, oil free, fragrance free, broad spectrum",
           "size_liquid, pack", (8.0, 35.0),
           "sensitive skin, kids"),
        _t("beauty", "nail polish", f"{B} › Foot, Hand & Nail Care › Nail Art & Polish › Nail Polish",
           "gel nail polish", "long lasting, quick dry, non toxic, high gloss, easy apply", "color, pack", (4.0, 22.0)),
    ),
    "food": (
        _t("food", "coffee beans", f"{G} › Beverages › Coffee, Tea & Cocoa › Coffee › Whole Coffee Beans",
           "whole bean coffee", "fair trade, usda organic, low acid, single origin, kosher certified",
           "flavor_coffee, size_food", (8.0, 42.0), "breakfast"),
        _t("food", "green tea", f"{G} › Beverages › Coffee, Tea & Cocoa › Tea › Green", "green tea bags",
           "usda organic, caffeine free, non gmo, gluten free, individually wrapped", "flavor_tea, pack", (4.0, 25.0)),
        _t("food", "protein bars", f"{G} › Snack Foods › Bars › Protein Bars", "protein bars",
           "gluten free, low sugar, plant based, high protein, non gmo, keto friendly",
           "flavor_sweet, item package quantity", (10.0, 40.0), "snacking"),
        _t("food", "beef jerky", f"{G} › Meat & Seafood › Jerky & Dried Meats › Beef Jerky", "beef jerky",
           "high protein, low fat, gluten free, keto friendly, ready eat, no preservatives",
           "flavor_snack, size_food, pack", (6.0, 45.0), "snacking, travel"),
        _t("food", "olive oil", f"{G} › Pantry Staples › Cooking & Baking › Oils › Olive", "extra virgin olive oil",
           "cold pressed, usda organic, non gmo, kosher certified, first cold", "size_liquid, pack", (7.0, 40.0),
           "baking"),
        _t("food", "dark chocolate", f"{G} › Snack Foods › Candy & Chocolate › Chocolate Bars", "dark chocolate bar",
           "fair trade, dairy free, low sugar, usda organic, individually wrapped, gluten free",
           "flavor_sweet, pack", (3.0, 30.0), "snacking, baking"),
        _t("food", "granola", f"{G} › Breakfast Foods › Cereals › Granola", "granola cereal",
           "gluten free, whole grain, non gmo, low sugar, plant based", "flavor_sweet, size_food, pack", (4.0, 24.0),
           "breakfast"),
        _t("food", "hot sauce", f"{G} › Pantry Staples › Condiments & Salad Dressings › Hot Sauce", "hot sauce",
           "gluten free, vegan, no preservatives, non gmo, low calorie", "flavor_sauce, size_liquid, pack",
           (3.0, 20.0)),
    ),
    "fashion": (
        _t("fashion", "men's t-shirts", f"{C} › Men › Clothing › Shirts › T-Shirts", "crew neck t-shirt",
           "machine wash, cotton blend, short sleeve, regular fit, moisture wicking, tag free",
           "size_apparel, color", (8.0, 30.0), "men"),
        _t("fashion", "women's jeans", f"{C} › Women › Clothing › Jeans", "high waist skinny jeans",
           "machine wash, stretch fabric, butt lifting, tummy control, button closure",
           "size_apparel, color", (18.0, 55.0), "women"),
        _t("fashion", "running shoes", f"{C} › Men › Shoes › Athletic › Running", "running shoes",
           "rubber sole, arch support, memory foam, non slip, breathable mesh, lightweight",
           "size_shoes, color", (25.0, 120.0), "men, women, running"),
        _t("fashion", "hoodies", f"{C} › Men › Clothing › Fashion Hoodies & Sweatshirts", "pullover hoodie",
           "fleece lining, machine wash, long sleeve, kangaroo pocket, drawstring closure",
           "size_apparel, color", (15.0, 60.0), "men, women"),
        _t("fashion", "women's dresses", f"{C} › Women › Clothing › Dresses › Casual", "maxi dress",
           "short sleeve, machine wash, flowy fabric, hand wash, v neck", "size_apparel, color", (15.0, 70.0),
           "women"),
        _t("fashion", "sandals", f"{C} › Women › Shoes › Sandals › Flats", "flat sandals",
           "arch support, open toe, ankle strap, rubber sole, non slip, adjustable strap",
           "size_shoes, color", (12.0, 65.0), "women"),
        _t("fashion", "winter jackets", f"{C} › Men › Clothing › Jackets & Coats › Down & Down Alternative",
           "puffer jacket", "water resistant, zipper closure, hood detachable, fleece lining, windproof, machine wash",
           "size_apparel, color", (35.0, 150.0), "men, women, hiking"),
        _t("fashion", "yoga pants", f"{C} › Women › Clothing › Active › Active Pants › Leggings", "yoga leggings",
           "tummy control, high waist, moisture wicking, butt lifting, four way stretch, squat proof",
           "size_apparel, color", (12.0, 45.0), "women, running"),
    ),
    "furniture": (
        _t("furniture", "tv stands", f"{H} › Living Room Furniture › TV & Media Furniture › Television Stands",
           "tv stand", "easy assemble, storage space, solid wood, cable management, engineered wood",
           "size_furniture, color", (45.0, 260.0), "living room, bedroom"),
        _t("furniture", "bookshelves", f"{H} › Home Office Furniture › Bookcases", "5-tier bookshelf",
           "easy assemble, engineered wood, metal frame, space saving, storage space",
           "color, style", (30.0, 180.0), "living room, home office"),
        _t("furniture", "office chairs", f"{H} › Home Office Furniture › Home Office Chairs › Desk Chairs",
           "ergonomic office chair", "lumbar support, height adjustable, easy assemble, high back, mesh back, armrests",
           "color, style", (60.0, 320.0), "home office, gaming"),
        _t("furniture", "coffee tables", f"{H} › Living Room Furniture › Tables › Coffee Tables", "coffee table",
           "easy assemble, solid wood, storage space, tempered glass, metal legs", "color, style", (50.0, 300.0),
           "living room"),
        _t("furniture", "bar stools", f"{H} › Kitchen & Dining Room Furniture › Stools › Barstools", "bar stools",
           "height adjustable, swivel seat, easy assemble, faux leather, metal frame, back support",
           "color, size_furniture, item package quantity", (40.0, 220.0)),
        _t("furniture", "nightstands", f"{H} › Bedroom Furniture › Nightstands", "nightstand",
           "easy assemble, storage space, solid wood, charging station, engineered wood",
           "color, style", (30.0, 160.0), "bedroom"),
        _t("furniture", "ottoman benches", f"{H} › Living Room Furniture › Ottomans", "storage ottoman bench",
           "space saving, easy assemble, faux leather, storage space, high density", "color, size_furniture",
           (35.0, 150.0), "living room, bedroom"),
        _t("furniture", "shoe racks", f"{H} › Entryway Furniture › Shoe Organizers", "shoe rack",
           "space saving, easy assemble, metal frame, stackable, non slip", "color, style", (15.0, 70.0)),
    ),
    "electronics": (
        _t("electronics", "usb microphones", f"{E} › Musical Instruments › Microphones & Accessories › Microphones",
           "usb condenser microphone", "noise cancelling, plug play, mute button, high definition, easy use",
           "color, style", (20.0, 130.0), "gaming"),
        _t("electronics", "bluetooth headphones", f"{E} › Headphones, Earbuds & Accessories › Headphones",
           "wireless bluetooth headphones",
           "noise cancelling, long battery, fast charging, built in microphone, hands free",
           "color, style", (20.0, 180.0), "travel, gaming"),
        _t("electronics", "phone chargers", f"{E} › Cell Phones & Accessories › Chargers & Power Adapters",
           "usb c wall charger", "fast charging, high speed, compact design, overheat protection, dual port",
           "color, pack", (9.0, 45.0), "iphone"),
        _t("electronics", "hdmi cables", f"{E} › Television & Video › Accessories › Cables › HDMI Cables", "hdmi cable",
           "high speed, gold plated, braided cable, 4k hdr, ethernet channel", "size_cable, pack", (6.0, 35.0)),
        _t("electronics", "wireless mice", f"{E} › Computers & Accessories › Keyboards, Mice & Accessories › Mice",
           "wireless mouse", "ergonomic design, long battery, plug play, silent click, usb receiver", "color, pack",
           (8.0, 60.0), "laptop, gaming"),
        _t("electronics", "portable speakers", f"{E} › Portable Audio & Video › Portable Speakers & Docks",
           "portable bluetooth speaker",
           "water resistant, long battery, high definition, hands free, built in microphone",
           "color, style", (18.0, 150.0), "travel"),
        _t("electronics", "laptop stands", f"{E} › Computers & Accessories › Laptop Accessories › Stands",
           "aluminum laptop stand", "height adjustable, heat dissipation, non slip, easy assemble, foldable design",
           "color, style", (15.0, 70.0), "laptop, home office"),
        _t("electronics", "power banks",
           f"{E} › Cell Phones & Accessories › Chargers & Power Adapters › Portable Power Banks",
           "portable power bank", "fast charging, high capacity, compact design, dual port, led display",
           "color, pack", (15.0, 80.0), "iphone, travel"),
    ),
}  # fmt: skip
