/* The layers' table (core/layer.h): filled by the layers' constructors at load. */
#include "core/layer.h"

#define IOT_MAX_LAYERS 16

static const struct iot_layer *layers[IOT_MAX_LAYERS];
static int nlayers;

void iot_layer_register(const struct iot_layer *layer)
{
    if (nlayers < IOT_MAX_LAYERS)
        layers[nlayers++] = layer;
}

int iot_layer_count(void)
{
    return nlayers;
}

const struct iot_layer *iot_layer_at(int index)
{
    return layers[index];
}

int iot_layer_sums_at(int index)
{
    int at = 0;
    for (int i = 0; i < index; i++)
        at += layers[i]->run_sums;
    return at;
}
